/*
 * image_locality.c: ImageLocalityPriority, the v1.22 score plugin
 * ImageLocality (plugins/imagelocality): nodes that already hold the pod's
 * container images score higher, by image size scaled with how widely the
 * image is spread over the cluster (to avoid piling pods on one node).
 */
#include "priorities/plugins.h"

#include <string.h>

#include "priorities/resource_allocation.h"
#include "priorities/priorities.h"

#define PRIO_NAME_IMAGE_LOCALITY "ImageLocalityPriority"

#define MB                      (1024 * 1024)
#define MIN_THRESHOLD           ((int64_t)23 * MB)
#define MAX_CONTAINER_THRESHOLD ((int64_t)1000 * MB)
#define LATEST_SUFFIX           ":latest"

/* Position of the last c in s, -1 when absent (strings.LastIndex). */
static long last_index(const char *s, char c)
{
    const char *p = strrchr(s, c);

    return p ? (long)(p - s) : -1;
}

/* The pod's container images resolved once per pod (PreScore). */
struct image_locality_state {
    size_t n;
    const struct image_state **states; /* per container; NULL: on no node */
};

/*
 * normalizedImageName: ":latest" is appended when the last ':' is not
 * after the last '/' (no registry or digest normalisation in v1.22).
 */
static const char *normalized(struct arena *a, const char *image)
{
    if (last_index(image, ':') > last_index(image, '/'))
        return image;
    return arena_sprintf(a, "%s%s", image, LATEST_SUFFIX);
}

int prio_image_locality_prescore(struct prio_cycle *cy, const void *args,
                                 void **state, struct err *e)
{
    const struct kube_pod *pod = cy->pod;
    struct image_locality_state *s = arena_calloc(cy->arena, 1, sizeof(*s));
    size_t i;

    (void)args;
    if (!s)
        return err_set(e, "ImageLocality: out of memory");
    s->n = pod->n_containers;
    s->states = arena_calloc(cy->arena, s->n + 1, sizeof(*s->states));
    if (!s->states)
        return err_set(e, "ImageLocality: out of memory");
    for (i = 0; i < s->n; i++) {
        const char *image = pod->containers[i].image;
        const char *name = normalized(cy->arena, image ? image : "");

        if (!name)
            return err_set(e, "ImageLocality: out of memory");
        s->states[i] = cluster_image(cy->cluster, name);
    }
    *state = s;
    return 0;
}

/*
 * Score: Σ over containers (not init containers; a repeated image counts
 * each time) of int64(size × numNodes / totalNodes), clamped into
 * [23 MiB, 1000 MiB × containers] and scaled to 0..100. The total is
 * every node of the cluster, not only the feasible ones.
 */
int prio_image_locality_score(const struct prio_cycle *cy, const void *args,
                              const void *state, const struct node_info *ni,
                              int64_t *score, struct err *e)
{
    const struct image_locality_state *s = state;
    int64_t sum = 0, max_threshold;
    size_t i;

    (void)args;
    (void)e;
    for (i = 0; i < s->n; i++) {
        const struct image_state *st = s->states[i];
        double spread;

        if (!node_info_has_image(ni, st))
            continue;
        spread = (double)st->num_nodes / (double)cy->cluster->n_nodes;
        sum = prio_add64(sum, prio_f2i64((double)st->size * spread));
    }
    max_threshold = MAX_CONTAINER_THRESHOLD * (int64_t)s->n;
    if (sum < MIN_THRESHOLD)
        sum = MIN_THRESHOLD;
    else if (sum > max_threshold)
        sum = max_threshold;
    *score = prio_div64(prio_mul64(PRIO_MAX_NODE_SCORE, sum - MIN_THRESHOLD),
                        max_threshold - MIN_THRESHOLD);
    return 0;
}

const struct prio_plugin prio_plugin_image_locality = {
    { "ImageLocality", KPE_EP_SCORE },
    prio_image_locality_prescore,
    prio_image_locality_score,
    NULL,
};

const struct prio_def prio_image_locality_priority = {
    .name = PRIO_NAME_IMAGE_LOCALITY,
    .aliases = NULL,
    .flags = PRIO_DEFAULT,
    .default_weight = 1,
    .needs = 0,
    .parse_args = NULL,
    .plugins = { &prio_plugin_image_locality },
    .own = NULL,
    .gate_off = NULL,
    .doc = "favours nodes that already have the pod's images",
};
