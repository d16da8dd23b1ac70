/*
 * log.h: leveled, thread-safe logging in klog's text layout
 * ("I1122 15:38:44.354090    6547 file.c:123] msg") or as one JSON object
 * per line. Verbosity gates LOG_V(n, ...) lines, as klog's -v does.
 */
#ifndef SERVER_COMMON_LOG_H
#define SERVER_COMMON_LOG_H

#include <stdio.h>

enum log_severity {
    LOG_SEV_INFO,    /* 'I' */
    LOG_SEV_WARNING, /* 'W' */
    LOG_SEV_ERROR,   /* 'E' */
};

enum log_format {
    LOG_FORMAT_TEXT, /* klog header then the message */
    LOG_FORMAT_JSON, /* {"ts":..,"level":..,"caller":..,"msg":..,k:v} */
};

/* One structured key/value; build them with LOG_S, LOG_I and LOG_F. */
struct log_kv {
    const char *key;
    int kind; /* 0 string, 1 integer, 2 floating point */
    const char *s;
    long long i;
    double f;
};

#define LOG_S(k, v) ((struct log_kv){ (k), 0, (v), 0, 0 })
#define LOG_I(k, v) ((struct log_kv){ (k), 1, NULL, (long long)(v), 0 })
#define LOG_F(k, v) ((struct log_kv){ (k), 2, NULL, 0, (double)(v) })

/*
 * Configure the process-wide logger. out NULL means stderr; the FILE is
 * borrowed (never closed). Safe to call while other threads log.
 */
void log_configure(FILE *out, enum log_format format, int verbosity);

/* Nonzero when lines of verbosity level v are written (v <= -v). */
int log_enabled(int v);

/* printf-style line (klog Infof). */
void log_printf(enum log_severity sev, const char *file, int line,
                const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * Structured line (klog InfoS): msg then the n key/values. In text format
 * they follow the message as key="value"; in JSON they become members.
 */
void log_structured(enum log_severity sev, const char *file, int line,
                    const char *msg, const struct log_kv *kv, size_t n);

#define LOG_INFO(...) log_printf(LOG_SEV_INFO, __FILE__, __LINE__, __VA_ARGS__)
#define LOG_WARN(...)                                                          \
    log_printf(LOG_SEV_WARNING, __FILE__, __LINE__, __VA_ARGS__)
#define LOG_ERROR(...)                                                         \
    log_printf(LOG_SEV_ERROR, __FILE__, __LINE__, __VA_ARGS__)
#define LOG_V(v, ...)                                                          \
    do {                                                                       \
        if (log_enabled(v))                                                    \
            log_printf(LOG_SEV_INFO, __FILE__, __LINE__, __VA_ARGS__);         \
    } while (0)
/* LOG_VS(2, "request", LOG_S("path", p), LOG_I("status", 200)) */
#define LOG_VS(v, msg, ...)                                                    \
    do {                                                                       \
        if (log_enabled(v)) {                                                  \
            const struct log_kv log_kv_[] = { __VA_ARGS__ };                   \
            log_structured(LOG_SEV_INFO, __FILE__, __LINE__, (msg), log_kv_,   \
                           sizeof(log_kv_) / sizeof(log_kv_[0]));              \
        }                                                                      \
    } while (0)

#endif
