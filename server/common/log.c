/*
 * log.c: the process-wide logger (see log.h). Each line is formatted into
 * a private buffer, then written with one fwrite under a mutex, so lines
 * from worker threads never interleave.
 */
#include "server/common/log.h"
#include "kube/base/strbuf.h"

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

/* Log lines start in LINE_STACK bytes of the caller's stack. */
#define LINE_STACK 1024

/* Append s as a JSON string body (no quotes) with escapes. */
static void log_escape(struct strbuf *b, const char *s)
{
    const unsigned char *c;

    for (c = (const unsigned char *)(s ? s : ""); *c; c++) {
        if (*c == '"' || *c == '\\') {
            char e[2] = { '\\', (char)*c };
            strbuf_addn(b, e, 2);
        } else if (*c == '\n') {
            strbuf_addn(b, "\\n", 2);
        } else if (*c == '\t') {
            strbuf_addn(b, "\\t", 2);
        } else if (*c < 0x20) {
            strbuf_printf(b, "\\u%04x", *c);
        } else {
            strbuf_addn(b, (const char *)c, 1);
        }
    }
}

static void log_quoted(struct strbuf *b, const char *s)
{
    strbuf_addn(b, "\"", 1);
    log_escape(b, s);
    strbuf_addn(b, "\"", 1);
}

static const char *base_name(const char *file)
{
    const char *slash = strrchr(file, '/');

    return slash ? slash + 1 : file;
}

static void header(struct strbuf *b, enum log_format fmt, enum log_severity sev,
                   const char *file, int line)
{
    static const char letters[] = "IWE";
    static const char *const names[] = { "info", "warning", "error" };
    struct timespec ts;
    struct tm tm;

    clock_gettime(CLOCK_REALTIME, &ts);
    if (fmt == LOG_FORMAT_JSON) {
        strbuf_printf(b, "{\"ts\":%lld.%06ld,\"level\":\"%s\",\"caller\":\"",
                      (long long)ts.tv_sec, ts.tv_nsec / 1000, names[sev]);
        log_escape(b, base_name(file));
        strbuf_printf(b, ":%d\",\"msg\":", line);
        return;
    }
    localtime_r(&ts.tv_sec, &tm);
    strbuf_printf(b, "%c%02d%02d %02d:%02d:%02d.%06ld %7ld %s:%d] ",
                  letters[sev], tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                  tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000,
                  (long)syscall(SYS_gettid), base_name(file), line);
}

static void emit(struct strbuf *b)
{
    FILE *out;

    if (b->failed)
        return;
    pthread_mutex_lock(&log_lock);
    out = log_out ? log_out : stderr;
    fwrite(b->s, 1, b->len, out);
    fflush(out);
    pthread_mutex_unlock(&log_lock);
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
    char b_stack[LINE_STACK], msg_stack[LINE_STACK];
    struct strbuf b;
    struct strbuf msg;
    va_list ap;

    strbuf_init_on(&b, b_stack, sizeof(b_stack));
    header(&b, f, sev, file, line);
    va_start(ap, fmt);
    if (f == LOG_FORMAT_JSON) {
        strbuf_init_on(&msg, msg_stack, sizeof(msg_stack));
        strbuf_vprintf(&msg, fmt, ap);
        if (!msg.failed)
            log_quoted(&b, msg.s);
        b.failed |= msg.failed;
        strbuf_free(&msg);
        strbuf_addn(&b, "}\n", 2);
    } else {
        strbuf_vprintf(&b, fmt, ap);
        strbuf_addn(&b, "\n", 1);
    }
    va_end(ap);
    emit(&b);
    strbuf_free(&b);
}

static void kv_value(struct strbuf *b, const struct log_kv *kv)
{
    if (kv->kind == 1)
        strbuf_printf(b, "%lld", kv->i);
    else if (kv->kind == 2 && isfinite(kv->f))
        strbuf_printf(b, "%.6g", kv->f);
    else if (kv->kind == 2)
        log_quoted(b, isnan(kv->f) ? "NaN" : kv->f > 0 ? "+Inf" : "-Inf");
    else
        log_quoted(b, kv->s);
}

void log_structured(enum log_severity sev, const char *file, int line,
                    const char *msg, const struct log_kv *kv, size_t n)
{
    enum log_format f = current_format();
    char b_stack[LINE_STACK];
    struct strbuf b;
    size_t i;

    strbuf_init_on(&b, b_stack, sizeof(b_stack));
    header(&b, f, sev, file, line);
    log_quoted(&b, msg);
    for (i = 0; i < n; i++) {
        if (f == LOG_FORMAT_JSON) {
            strbuf_addn(&b, ",", 1);
            log_quoted(&b, kv[i].key);
            strbuf_addn(&b, ":", 1);
        } else {
            strbuf_addn(&b, " ", 1);
            strbuf_add(&b, kv[i].key);
            strbuf_addn(&b, "=", 1);
        }
        kv_value(&b, &kv[i]);
    }
    strbuf_addn(&b, f == LOG_FORMAT_JSON ? "}\n" : "\n",
                f == LOG_FORMAT_JSON ? 2 : 1);
    emit(&b);
    strbuf_free(&b);
}
