/*
 * normalize.c: helper.DefaultNormalizeScore
 * (plugins/helper/normalize_score.go).
 */
#include "priorities/framework.h"

void prio_normalize_default(int64_t *scores, size_t n, int64_t max,
                            bool reverse)
{
    int64_t hi = 0;
    size_t i;

    for (i = 0; i < n; i++) {
        if (scores[i] > hi)
            hi = scores[i];
    }
    if (hi == 0) {
        if (reverse) {
            for (i = 0; i < n; i++)
                scores[i] = max;
        }
        return;
    }
    for (i = 0; i < n; i++) {
        int64_t s = max * scores[i] / hi;

        scores[i] = reverse ? max - s : s;
    }
}
