/*
 * suggest.c: "did you mean" for unknown predicate and priority names:
 * the closest registered name by edit distance (Levenshtein, with a
 * case-only difference counted as half an edit).
 */
#include "policy/policy.h"

#include <ctype.h>
#include <string.h>

#define SUGGEST_MAX_LEN 128

/* Edit distance x2 (so a case-only change can cost 1). */
static size_t distance2(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), i, j;
    size_t row[SUGGEST_MAX_LEN + 1];

    if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
        return (size_t)-1;
    for (j = 0; j <= lb; j++)
        row[j] = 2 * j;
    for (i = 1; i <= la; i++) {
        size_t diag = row[0];

        row[0] = 2 * i;
        for (j = 1; j <= lb; j++) {
            size_t up = row[j], cost, best;
            unsigned char ca = (unsigned char)a[i - 1];
            unsigned char cb = (unsigned char)b[j - 1];

            if (ca == cb)
                cost = 0;
            else if (tolower(ca) == tolower(cb))
                cost = 1;
            else
                cost = 2;
            best = diag + cost;
            if (up + 2 < best)
                best = up + 2;
            if (row[j - 1] + 2 < best)
                best = row[j - 1] + 2;
            diag = up;
            row[j] = best;
        }
    }
    return row[lb];
}

const char *policy_suggest(const char *name, const char *const *cands, size_t n)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1, i, len;

    if (!name || !*name)
        return NULL;
    len = strlen(name);
    for (i = 0; i < n; i++) {
        size_t d = distance2(name, cands[i]);

        if (d < best_d) {
            best_d = d;
            best = cands[i];
        }
    }
    /* Close enough: at most a third of the name, and at most 4 edits. */
    if (!best || best_d == 0 || best_d > 8 || best_d > (2 * len) / 3 + 1)
        return NULL;
    return best;
}

const char *policy_suggest_predicate(const char *name, unsigned compat)
{
    const char *cands[64];
    size_t n, i, k = 0;
    const struct pred_def *const *rows = pred_registry(&n);
    const char *const *al;

    for (i = 0; i < n && k < 64; i++) {
        if ((rows[i]->flags & PRED_LEGACY) && !(compat & POLICY_COMPAT_LEGACY))
            continue;
        cands[k++] = rows[i]->name;
    }
    for (i = 0; i < n; i++) {
        for (al = rows[i]->aliases; al && *al && k < 64; al++)
            cands[k++] = *al;
    }
    return policy_suggest(name, cands, k);
}

const char *policy_suggest_priority(const char *name, unsigned compat)
{
    const char *cands[64];
    size_t n, i, k = 0;
    const struct prio_def *const *rows = prio_registry(&n);
    const char *const *al;

    for (i = 0; i < n && k < 64; i++) {
        if ((rows[i]->flags & PRIO_LEGACY) && !(compat & POLICY_COMPAT_LEGACY))
            continue;
        cands[k++] = rows[i]->name;
    }
    for (i = 0; i < n; i++) {
        for (al = rows[i]->aliases; al && *al && k < 64; al++)
            cands[k++] = *al;
    }
    return policy_suggest(name, cands, k);
}
