/*
 * file_watch.h: call a function when a file changes (modification time,
 * size or inode, following symlinks, so a ConfigMap's atomic symlink swap
 * counts), checked by a background thread at a fixed interval.
 */
#ifndef SERVER_COMMON_FILE_WATCH_H
#define SERVER_COMMON_FILE_WATCH_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/stat.h>

typedef void file_watch_fn(void *arg);

struct file_watch {
    const char *path;
    int interval_ms;
    file_watch_fn *fn;
    void *arg;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stop;
    bool running;
    bool have; /* a previous stat to compare with */
    struct stat last;
};

/* Start watching path (which must outlive the watch). 0, or -1. */
int file_watch_start(struct file_watch *w, const char *path, int interval_ms,
                     file_watch_fn *fn, void *arg);

/* Stop the thread and wait for it; safe on a watch that never started. */
void file_watch_stop(struct file_watch *w);

#endif
