/*
 * engine_select.c: selectHost of kube-scheduler v1.22
 * (core/generic_scheduler.go): the host with the highest total score, one
 * of several equal ones uniformly at random. Shared by the standalone
 * scheduler and the extender's single-top answer.
 */
#include "engine/engine_select.h"
uint64_t engine_rng_next(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

size_t engine_select_host(const int64_t *totals, size_t n, uint64_t *rng)
{
    size_t i, selected = 0, count = 1;
    int64_t max = totals[0];

    for (i = 1; i < n; i++) {
        if (totals[i] > max) {
            max = totals[i];
            selected = i;
            count = 1;
        } else if (totals[i] == max) {
            count++;
            if (engine_rng_next(rng) % count == 0)
                selected = i;
        }
    }
    return selected;
}
