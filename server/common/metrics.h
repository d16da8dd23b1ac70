/*
 * metrics.h: a small Prometheus registry. Series are registered under a
 * mutex (any time, from any thread) and updated lock-free with atomics;
 * metrics_render() writes the text exposition format (version 0.0.4).
 */
#ifndef SERVER_COMMON_METRICS_H
#define SERVER_COMMON_METRICS_H

#include <stddef.h>
#include <stdint.h>

struct metrics;
struct metrics_counter;
struct metrics_gauge;
struct metrics_histogram;

/* Value of a gauge computed when /metrics is scraped. */
typedef double metrics_value_fn(void *arg);

/* A new empty registry, or NULL when out of memory. */
struct metrics *metrics_new(void);

/* Free the registry and every series it handed out. */
void metrics_free(struct metrics *m);

/*
 * Register (or find) the series `name{labels}`. labels is the text between
 * the braces, already escaped (`route="/healthz",code="200"`), or "" for
 * none. help is used for the family's first registration. Registering the
 * same name with another type returns NULL. Calling again with the same
 * name and labels returns the same series. The registry owns the series;
 * pointers stay valid until metrics_free().
 */
struct metrics_counter *metrics_counter(struct metrics *m, const char *name,
                                        const char *help, const char *labels);
struct metrics_gauge *metrics_gauge(struct metrics *m, const char *name,
                                    const char *help, const char *labels);
/* A gauge whose value is fn(arg) at scrape time. */
struct metrics_gauge *metrics_gauge_fn(struct metrics *m, const char *name,
                                       const char *help, const char *labels,
                                       metrics_value_fn *fn, void *arg);
/* bounds: n increasing upper bounds (copied); +Inf is implicit. */
struct metrics_histogram *metrics_histogram(struct metrics *m, const char *name,
                                            const char *help,
                                            const char *labels,
                                            const double *bounds, size_t n);

/* Updates: thread-safe, lock-free; a NULL series is ignored. */
void metrics_counter_add(struct metrics_counter *c, uint64_t n);
uint64_t metrics_counter_value(const struct metrics_counter *c);
void metrics_gauge_set(struct metrics_gauge *g, double v);
void metrics_histogram_observe(struct metrics_histogram *h, double v);

/*
 * Render every family in registration order. Returns a malloc'd,
 * NUL-terminated string (the caller frees it) and its length in *len, or
 * NULL when out of memory.
 */
char *metrics_render(struct metrics *m, size_t *len);

/* Escape a label value for use inside labels="..." (\\, \", \n). */
void metrics_escape_label(char *dst, size_t dstsz, const char *value);

#endif
