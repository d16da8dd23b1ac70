/*
 * labels.c: string maps (labels, annotations, nodeSelector, Service
 * selectors) kept sorted by key so lookups bisect, and the plain map
 * selector (labels.SelectorFromSet: every key present with that value).
 */
#include "kube/model/labels.h"

#include <stdlib.h>
#include <string.h>

static int key_cmp(const struct kube_label *x, const struct kube_label *y)
{
    return strcmp(x->key ? x->key : "", y->key ? y->key : "");
}

/* Stable merge of a[lo..mid) and a[mid..hi) through tmp. */
static void merge(struct kube_label *a, struct kube_label *tmp, size_t lo,
                  size_t mid, size_t hi)
{
    size_t i = lo, j = mid, k = lo;

    while (i < mid && j < hi)
        tmp[k++] = key_cmp(&a[j], &a[i]) < 0 ? a[j++] : a[i++];
    while (i < mid)
        tmp[k++] = a[i++];
    while (j < hi)
        tmp[k++] = a[j++];
    memcpy(a + lo, tmp + lo, (hi - lo) * sizeof(*a));
}

/* Stable in-place insertion sort, for when no scratch memory is left. */
static void insertion_sort(struct kube_label *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        struct kube_label x = a[i];
        size_t j = i;

        while (j > 0 && key_cmp(&x, &a[j - 1]) < 0) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
}

static void stable_sort(struct kube_label *a, size_t n)
{
    struct kube_label *tmp;

    if (n < 2)
        return;
    tmp = malloc(n * sizeof(*tmp));
    if (!tmp) {
        insertion_sort(a, n);
        return;
    }
    for (size_t width = 1; width < n; width *= 2)
        for (size_t lo = 0; lo + width < n; lo += 2 * width) {
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;

            merge(a, tmp, lo, lo + width, hi);
        }
    free(tmp);
}

/*
 * Sort by key (strcmp), stably, then keep the last item of each run of
 * equal keys: the value a later duplicate JSON key would leave in a Go map.
 */
void kube_labels_normalize(struct kube_labels *l)
{
    size_t out = 0;

    if (!l || l->n == 0 || !l->items)
        return;
    stable_sort(l->items, l->n);
    for (size_t i = 0; i < l->n; i++) {
        if (i + 1 < l->n && key_cmp(&l->items[i], &l->items[i + 1]) == 0)
            continue;
        l->items[out++] = l->items[i];
    }
    l->n = out;
}

/* Bisect the sorted items; NULL for a NULL map, key, or a missing key. */
const char *kube_labels_get(const struct kube_labels *l, const char *key)
{
    size_t lo = 0, hi;

    if (!l || !key || !l->items)
        return NULL;
    hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(l->items[mid].key ? l->items[mid].key : "", key);

        if (c == 0)
            return l->items[mid].value ? l->items[mid].value : "";
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/*
 * Map selector semantics: every key of sel is in l with an equal value. An
 * empty (or NULL) sel matches everything, whether or not it was present;
 * callers that treat a nil selector as "nothing" check sel->present.
 */
bool kube_labels_contain(const struct kube_labels *l,
                         const struct kube_labels *sel)
{
    if (!sel)
        return true;
    for (size_t i = 0; i < sel->n; i++) {
        const char *want = sel->items[i].value ? sel->items[i].value : "";
        const char *have = kube_labels_get(l, sel->items[i].key);

        if (!have || strcmp(have, want) != 0)
            return false;
    }
    return true;
}
