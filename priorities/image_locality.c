/*
 * image_locality.c: ImageLocalityPriority, the v1.22 score plugin
 * ImageLocality (plugins/imagelocality): nodes that already hold the pod's
 * container images score higher, by image size scaled with how widely the
 * image is spread over the cluster (to avoid piling pods on one node).
 */
#include "priorities/plugins.h"

#include <stdio.h>
#include <string.h>

#include "priorities/resource_allocation.h"

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

/*
 * The node's image state for a container image, by normalizedImageName:
 * ":latest" is appended when the last ':' is not after the last '/'
 * (no registry or digest normalisation in v1.22).
 */
static const struct image_state *image_on_node(const struct prio_cycle *cy,
                                               const struct node_info *ni,
                                               const char *image)
{
    char buf[512];
    const char *name = image;

    if (last_index(image, ':') <= last_index(image, '/')) {
        if (strlen(image) + sizeof(LATEST_SUFFIX) <= sizeof(buf)) {
            snprintf(buf, sizeof(buf), "%s%s", image, LATEST_SUFFIX);
            name = buf;
        } else {
            name = arena_sprintf(cy->arena, "%s%s", image, LATEST_SUFFIX);
            if (!name)
                return NULL;
        }
    }
    return node_info_image(ni, name);
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
    const struct kube_pod *pod = cy->pod;
    int64_t sum = 0, max_threshold;
    size_t i;

    (void)args;
    (void)state;
    (void)e;
    for (i = 0; i < pod->n_containers; i++) {
        const char *image = pod->containers[i].image;
        const struct image_state *st =
            image_on_node(cy, ni, image ? image : "");
        double spread;

        if (!st)
            continue;
        spread = (double)st->num_nodes / (double)cy->cluster->n_nodes;
        sum = prio_add64(sum, prio_f2i64((double)st->size * spread));
    }
    max_threshold = MAX_CONTAINER_THRESHOLD * (int64_t)pod->n_containers;
    if (sum < MIN_THRESHOLD)
        sum = MIN_THRESHOLD;
    else if (sum > max_threshold)
        sum = max_threshold;
    *score = prio_div64(prio_mul64(PRIO_MAX_NODE_SCORE, sum - MIN_THRESHOLD),
                        max_threshold - MIN_THRESHOLD);
    return 0;
}
