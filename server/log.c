/*
 * log.c: the process-wide logger (see log.h). Each line is formatted into
 * a private buffer, then written with one fwrite under a mutex, so lines
 * from worker threads never interleave.
 */
#include "server/log.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_out;
static enum log_format log_fmt = LOG_FORMAT_TEXT;
static atomic_int log_verbosity;

/* A growable line buffer that starts on the caller's stack. */
struct lbuf {
    char *p;
    size_t len, cap;
    int heap;
    int failed;
    char stack[1024];
};

static void lb_init(struct lbuf *b)
{
    b->p = b->stack;
    b->len = 0;
    b->cap = sizeof(b->stack);
    b->heap = 0;
    b->failed = 0;
}

static int lb_reserve(struct lbuf *b, size_t n)
{
    size_t cap = b->cap;
    char *np;

    if (b->failed)
        return -1;
    if (b->len + n + 1 <= b->cap)
        return 0;
    while (cap < b->len + n + 1)
        cap *= 2;
    np = b->heap ? realloc(b->p, cap) : malloc(cap);
    if (!np) {
        b->failed = 1;
        return -1;
    }
    if (!b->heap)
        memcpy(np, b->p, b->len);
    b->p = np;
    b->cap = cap;
    b->heap = 1;
    return 0;
}

static void lb_add(struct lbuf *b, const char *s, size_t n)
{
    if (lb_reserve(b, n) == 0) {
        memcpy(b->p + b->len, s, n);
        b->len += n;
    }
}

static void lb_vprintf(struct lbuf *b, const char *fmt, va_list ap)
{
    va_list cp;
    int n;

    va_copy(cp, ap);
    n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, cp);
    va_end(cp);
    if (n < 0)
        return;
    if ((size_t)n >= b->cap - b->len) {
        if (lb_reserve(b, (size_t)n) != 0)
            return;
        vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    }
    b->len += (size_t)n;
}

static void lb_printf(struct lbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void lb_printf(struct lbuf *b, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    lb_vprintf(b, fmt, ap);
    va_end(ap);
}

/* Append s as a JSON string body (no quotes) with escapes. */
static void lb_escape(struct lbuf *b, const char *s)
{
    const unsigned char *c;

    for (c = (const unsigned char *)(s ? s : ""); *c; c++) {
        if (*c == '"' || *c == '\\') {
            char e[2] = { '\\', (char)*c };
            lb_add(b, e, 2);
        } else if (*c == '\n') {
            lb_add(b, "\\n", 2);
        } else if (*c == '\t') {
            lb_add(b, "\\t", 2);
        } else if (*c < 0x20) {
            lb_printf(b, "\\u%04x", *c);
        } else {
            lb_add(b, (const char *)c, 1);
        }
    }
}

static void lb_quoted(struct lbuf *b, const char *s)
{
    lb_add(b, "\"", 1);
    lb_escape(b, s);
    lb_add(b, "\"", 1);
}

static const char *base_name(const char *file)
{
    const char *slash = strrchr(file, '/');

    return slash ? slash + 1 : file;
}

static void header(struct lbuf *b, enum log_format fmt, enum log_severity sev,
                   const char *file, int line)
{
    static const char letters[] = "IWE";
    static const char *const names[] = { "info", "warning", "error" };
    struct timespec ts;
    struct tm tm;

    clock_gettime(CLOCK_REALTIME, &ts);
    if (fmt == LOG_FORMAT_JSON) {
        lb_printf(b, "{\"ts\":%lld.%06ld,\"level\":\"%s\",\"caller\":\"",
                  (long long)ts.tv_sec, ts.tv_nsec / 1000, names[sev]);
        lb_escape(b, base_name(file));
        lb_printf(b, ":%d\",\"msg\":", line);
        return;
    }
    localtime_r(&ts.tv_sec, &tm);
    lb_printf(b, "%c%02d%02d %02d:%02d:%02d.%06ld %7ld %s:%d] ", letters[sev],
              tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
              ts.tv_nsec / 1000, (long)syscall(SYS_gettid), base_name(file),
              line);
}

static void emit(struct lbuf *b)
{
    FILE *out;

    if (b->failed)
        return;
    pthread_mutex_lock(&log_lock);
    out = log_out ? log_out : stderr;
    fwrite(b->p, 1, b->len, out);
    fflush(out);
    pthread_mutex_unlock(&log_lock);
}

static void lb_free(struct lbuf *b)
{
    if (b->heap)
        free(b->p);
}

static enum log_format current_format(void)
{
    enum log_format f;

    pthread_mutex_lock(&log_lock);
    f = log_fmt;
    pthread_mutex_unlock(&log_lock);
    return f;
}

void log_configure(FILE *out, enum log_format format, int verbosity)
{
    pthread_mutex_lock(&log_lock);
    log_out = out;
    log_fmt = format;
    pthread_mutex_unlock(&log_lock);
    atomic_store(&log_verbosity, verbosity);
}

int log_enabled(int v)
{
    return v <= atomic_load(&log_verbosity);
}

void log_printf(enum log_severity sev, const char *file, int line,
                const char *fmt, ...)
{
    enum log_format f = current_format();
    struct lbuf b;
    struct lbuf msg;
    va_list ap;

    lb_init(&b);
    header(&b, f, sev, file, line);
    va_start(ap, fmt);
    if (f == LOG_FORMAT_JSON) {
        lb_init(&msg);
        lb_vprintf(&msg, fmt, ap);
        lb_add(&msg, "", 1);
        if (!msg.failed)
            lb_quoted(&b, msg.p);
        b.failed |= msg.failed;
        lb_free(&msg);
        lb_add(&b, "}\n", 2);
    } else {
        lb_vprintf(&b, fmt, ap);
        lb_add(&b, "\n", 1);
    }
    va_end(ap);
    emit(&b);
    lb_free(&b);
}

static void kv_value(struct lbuf *b, const struct log_kv *kv)
{
    if (kv->kind == 1)
        lb_printf(b, "%lld", kv->i);
    else if (kv->kind == 2 && isfinite(kv->f))
        lb_printf(b, "%.6g", kv->f);
    else if (kv->kind == 2)
        lb_quoted(b, isnan(kv->f) ? "NaN" : kv->f > 0 ? "+Inf" : "-Inf");
    else
        lb_quoted(b, kv->s);
}

void log_structured(enum log_severity sev, const char *file, int line,
                    const char *msg, const struct log_kv *kv, size_t n)
{
    enum log_format f = current_format();
    struct lbuf b;
    size_t i;

    lb_init(&b);
    header(&b, f, sev, file, line);
    lb_quoted(&b, msg);
    for (i = 0; i < n; i++) {
        if (f == LOG_FORMAT_JSON) {
            lb_add(&b, ",", 1);
            lb_quoted(&b, kv[i].key);
            lb_add(&b, ":", 1);
        } else {
            lb_add(&b, " ", 1);
            lb_add(&b, kv[i].key, strlen(kv[i].key));
            lb_add(&b, "=", 1);
        }
        kv_value(&b, &kv[i]);
    }
    lb_add(&b, f == LOG_FORMAT_JSON ? "}\n" : "\n",
           f == LOG_FORMAT_JSON ? 2 : 1);
    emit(&b);
    lb_free(&b);
}
