/*
 * clock.h: the monotonic clock every part reads (timeouts, rates,
 * latencies).
 */
#ifndef KUBE_BASE_CLOCK_H
#define KUBE_BASE_CLOCK_H

/* Monotonic clock in seconds. */
double kube_now(void);

#endif
