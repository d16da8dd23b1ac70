/*
 * backoff.h: the retry delay of a failing API call, as client-go's
 * exponential backoff manager (apimachinery pkg/util/wait,
 * NewExponentialBackoffManager) that the reflector uses for relists: the
 * first wait is `initial`, each next one doubles up to `cap`, each is
 * stretched by up to `jitter` times itself at random, and the sequence
 * starts over once `reset` seconds passed since the last wait began (the
 * server was healthy meanwhile). The reflector's values are 0.8 s, 30 s,
 * 2 min and jitter 1.0 (client-go tools/cache/reflector.go NewReflector).
 */
#ifndef KUBE_CLIENT_BACKOFF_H
#define KUBE_CLIENT_BACKOFF_H

#include <stdbool.h>

struct kube_backoff {
    double initial; /* seconds */
    double cap;     /* longest un-jittered wait */
    double reset;   /* seconds without a wait that start the sequence over;
                       0: never */
    double jitter;  /* <= 0: none */
    double next;    /* the next un-jittered wait; 0: initial */
    double last;    /* when the last wait began; < 0: never */
};

/* A manager with these values, never used yet. */
void kube_backoff_init(struct kube_backoff *b, double initial, double cap,
                       double reset, double jitter);

/*
 * The wait (seconds) before the next attempt, at monotonic time now;
 * rand01 is a uniform random number in [0, 1) for the jitter.
 */
double kube_backoff_next(struct kube_backoff *b, double now, double rand01);

/* Start over at initial (the call just succeeded in a way that proves the
 * server healthy). */
void kube_backoff_reset(struct kube_backoff *b);

#endif
