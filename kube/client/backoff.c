/*
 * backoff.c: client-go's exponential backoff manager (see backoff.h):
 * wait.exponentialBackoffManagerImpl.getNextBackoff, whose Backoff.Step
 * doubles the duration (Factor 2.0) up to Cap and adds
 * wait.Jitter(duration, jitter).
 */
#include "kube/client/backoff.h"

void kube_backoff_init(struct kube_backoff *b, double initial, double cap,
                       double reset, double jitter)
{
    b->initial = initial;
    b->cap = cap < initial ? initial : cap;
    b->reset = reset;
    b->jitter = jitter;
    b->next = 0;
    b->last = -1;
}

double kube_backoff_next(struct kube_backoff *b, double now, double rand01)
{
    double d;

    if (b->next <= 0 ||
        (b->reset > 0 && b->last >= 0 && now - b->last > b->reset))
        b->next = b->initial;
    b->last = now;
    d = b->next;
    b->next = d * 2 > b->cap ? b->cap : d * 2;
    if (b->jitter > 0)
        d += d * b->jitter * rand01;
    return d;
}

void kube_backoff_reset(struct kube_backoff *b)
{
    b->next = 0;
}
