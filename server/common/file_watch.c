/*
 * file_watch.c: polling file watcher (see file_watch.h).
 */
#include "server/common/file_watch.h"

#include <errno.h>
#include <string.h>
#include <time.h>

static bool changed(const struct stat *a, const struct stat *b)
{
    return a->st_ino != b->st_ino || a->st_dev != b->st_dev ||
           a->st_size != b->st_size || a->st_mtim.tv_sec != b->st_mtim.tv_sec ||
           a->st_mtim.tv_nsec != b->st_mtim.tv_nsec;
}

static void *watch_main(void *arg)
{
    struct file_watch *w = arg;

    pthread_mutex_lock(&w->lock);
    while (!w->stop) {
        struct timespec until;
        struct stat st;

        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += w->interval_ms / 1000;
        until.tv_nsec += (long)(w->interval_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        while (!w->stop &&
               pthread_cond_timedwait(&w->wake, &w->lock, &until) != ETIMEDOUT)
            ;
        if (w->stop)
            break;
        /* A file being replaced may be missing for a moment: try later. */
        if (stat(w->path, &st) != 0)
            continue;
        if (w->have && changed(&st, &w->last)) {
            w->last = st;
            pthread_mutex_unlock(&w->lock);
            w->fn(w->arg);
            pthread_mutex_lock(&w->lock);
            continue;
        }
        w->last = st;
        w->have = true;
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

int file_watch_start(struct file_watch *w, const char *path, int interval_ms,
                     file_watch_fn *fn, void *arg)
{
    memset(w, 0, sizeof(*w));
    w->path = path;
    w->interval_ms = interval_ms > 0 ? interval_ms : 1000;
    w->fn = fn;
    w->arg = arg;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->wake, NULL);
    w->have = stat(path, &w->last) == 0;
    if (pthread_create(&w->thread, NULL, watch_main, w) != 0)
        return -1;
    w->running = true;
    return 0;
}

void file_watch_stop(struct file_watch *w)
{
    if (!w->running)
        return;
    pthread_mutex_lock(&w->lock);
    w->stop = true;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    w->running = false;
}
