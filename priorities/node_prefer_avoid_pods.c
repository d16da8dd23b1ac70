/*
 * node_prefer_avoid_pods.c: NodePreferAvoidPodsPriority, the v1.22 score
 * plugin NodePreferAvoidPods (plugins/nodepreferavoidpods): 0 on a node
 * whose scheduler.alpha.kubernetes.io/preferAvoidPods annotation lists the
 * pod's controlling ReplicationController or ReplicaSet, else 100.
 *
 * The annotation is decoded as Go's encoding/json decodes it into
 * v1.AvoidPods: keys match field names case-insensitively, unknown keys
 * are ignored, null leaves a field empty, and any value of the wrong type
 * (or an evictionTime that is not RFC 3339) makes the whole annotation an
 * error, which upstream treats as "nothing to avoid".
 */
#include "priorities/plugins.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "kube/base/arena.h"
#include "kube/base/json_parse.h"
#include "kube/model/labels.h"
#include "priorities/priorities.h"

#define PRIO_NAME_NODE_PREFER_AVOID_PODS "NodePreferAvoidPodsPriority"

#define SCRATCH_CHUNK 4096

/* A value for a Go string / bool / struct field: that type or null. */
static bool is_string_or_null(const cJSON *v)
{
    return cJSON_IsString(v) || cJSON_IsNull(v);
}

static bool is_bool_or_null(const cJSON *v)
{
    return cJSON_IsBool(v) || cJSON_IsNull(v);
}

static bool is_object_or_null(const cJSON *v)
{
    return cJSON_IsObject(v) || cJSON_IsNull(v);
}

/* Go's field match: exact or ASCII case-insensitive. */
static bool key_is(const cJSON *member, const char *field)
{
    return member->string && strcasecmp(member->string, field) == 0;
}

static int digits(const char *s, int n)
{
    int v = 0, i;

    for (i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/* time.Parse(time.RFC3339, s) succeeds (Go 1.16 rules, '.' fractions). */
static bool is_rfc3339(const char *s)
{
    static const int mdays[] = {
        31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31
    };
    int y, mo, d, h, mi, sec, max_day;

    if (strlen(s) < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' ||
        s[13] != ':' || s[16] != ':')
        return false;
    y = digits(s, 4);
    mo = digits(s + 5, 2);
    d = digits(s + 8, 2);
    h = digits(s + 11, 2);
    mi = digits(s + 14, 2);
    sec = digits(s + 17, 2);
    if (y < 0 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 ||
        mi > 59 || sec < 0 || sec > 59)
        return false;
    max_day = mdays[mo - 1];
    if (mo == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))
        max_day = 29;
    if (d > max_day)
        return false;
    s += 19;
    if (s[0] == '.' && s[1] >= '0' && s[1] <= '9') {
        for (s++; *s >= '0' && *s <= '9'; s++)
            ;
    }
    if (s[0] == 'Z')
        return s[1] == '\0';
    return (s[0] == '+' || s[0] == '-') && digits(s + 1, 2) >= 0 &&
           s[3] == ':' && digits(s + 4, 2) >= 0 && s[6] == '\0';
}

/* metav1.OwnerReference: the string and bool fields have their types. */
static bool controller_ok(const cJSON *o)
{
    const cJSON *m;

    cJSON_ArrayForEach(m, o)
    {
        if ((key_is(m, "apiVersion") || key_is(m, "kind") ||
             key_is(m, "name") || key_is(m, "uid")) &&
            !is_string_or_null(m))
            return false;
        if ((key_is(m, "controller") || key_is(m, "blockOwnerDeletion")) &&
            !is_bool_or_null(m))
            return false;
    }
    return true;
}

/* One PreferAvoidPodsEntry decodes without error. */
static bool entry_ok(const cJSON *o)
{
    const cJSON *m, *c;

    if (cJSON_IsNull(o))
        return true;
    if (!cJSON_IsObject(o))
        return false;
    cJSON_ArrayForEach(m, o)
    {
        if ((key_is(m, "reason") || key_is(m, "message")) &&
            !is_string_or_null(m))
            return false;
        if (key_is(m, "evictionTime") && !cJSON_IsNull(m) &&
            !(cJSON_IsString(m) && is_rfc3339(m->valuestring)))
            return false;
        if (!key_is(m, "podSignature"))
            continue;
        if (!is_object_or_null(m))
            return false;
        cJSON_ArrayForEach(c, m)
        {
            if (key_is(c, "podController") &&
                !(cJSON_IsNull(c) || (cJSON_IsObject(c) && controller_ok(c))))
                return false;
        }
    }
    return true;
}

/* The last member of o whose key matches field (Go: the last one wins). */
static const cJSON *member(const cJSON *o, const char *field)
{
    const cJSON *m, *found = NULL;

    if (!cJSON_IsObject(o))
        return NULL;
    cJSON_ArrayForEach(m, o)
    {
        if (key_is(m, field))
            found = m;
    }
    return found;
}

/*
 * Whether the annotation text lists (kind, uid). Decode errors give false
 * (GetAvoidPodsFromNodeAnnotations fails; upstream then scores 100).
 */
static bool avoids(const char *text, const struct kube_owner_ref *ref)
{
    struct arena scratch;
    const cJSON *root, *obj, *arr, *m, *list = NULL, *entry;
    cJSON *tree;
    bool ok = true, hit = false;

    arena_init(&scratch, SCRATCH_CHUNK);
    if (json_arena_parse(&scratch, text, strlen(text), 0, &tree, NULL) < 0) {
        arena_destroy(&scratch);
        return false;
    }
    root = tree;
    if (!is_object_or_null(root))
        ok = false;
    obj = cJSON_IsObject(root) ? root : NULL;
    cJSON_ArrayForEach(m, obj)
    {
        if (!key_is(m, "preferAvoidPods"))
            continue;
        if (!cJSON_IsArray(m) && !cJSON_IsNull(m))
            ok = false;
        arr = cJSON_IsArray(m) ? m : NULL;
        cJSON_ArrayForEach(entry, arr)
        {
            if (!entry_ok(entry))
                ok = false;
        }
        list = m;
    }
    arr = ok && cJSON_IsArray(list) ? list : NULL;
    cJSON_ArrayForEach(entry, arr)
    {
        const cJSON *pc =
            member(member(entry, "podSignature"), "podController");
        const cJSON *kind = member(pc, "kind"), *uid = member(pc, "uid");

        /* A missing podController would dereference nil upstream. */
        if (!cJSON_IsObject(pc))
            continue;
        if (!strcmp(cJSON_IsString(kind) ? kind->valuestring : "",
                    ref->kind ? ref->kind : "") &&
            !strcmp(cJSON_IsString(uid) ? uid->valuestring : "",
                    ref->uid ? ref->uid : "")) {
            hit = true;
            break;
        }
    }
    arena_destroy(&scratch);
    return hit;
}

/* metav1.GetControllerOf, kept only for ReplicationController/ReplicaSet. */
static const struct kube_owner_ref *rc_or_rs(const struct kube_pod *pod)
{
    size_t i;

    for (i = 0; i < pod->n_owner_refs; i++) {
        const struct kube_owner_ref *r = &pod->owner_refs[i];

        if (!r->controller)
            continue;
        if (r->kind && (!strcmp(r->kind, "ReplicationController") ||
                        !strcmp(r->kind, "ReplicaSet")))
            return r;
        return NULL;
    }
    return NULL;
}

/*
 * Score: 100 unless the pod's controller is listed in the node's
 * annotation (kind and uid compared; apiVersion and name are not), then 0.
 * The annotation is decoded per node into a scratch arena freed here.
 */
int prio_node_prefer_avoid_pods_score(const struct prio_cycle *cy,
                                      const void *args, const void *state,
                                      const struct node_info *ni,
                                      int64_t *score, struct err *e)
{
    const struct kube_owner_ref *ref = rc_or_rs(cy->pod);
    const char *text;

    (void)args;
    (void)state;
    (void)e;
    *score = PRIO_MAX_NODE_SCORE;
    if (!ref)
        return 0;
    text = ni->avoid_pods; /* KUBE_ANNOTATION_PREFER_AVOID_PODS */
    if (text && text[0] && avoids(text, ref))
        *score = 0;
    return 0;
}

const struct prio_plugin prio_plugin_node_prefer_avoid_pods = {
    { "NodePreferAvoidPods", KPE_EP_SCORE },
    NULL,
    prio_node_prefer_avoid_pods_score,
    NULL,
};

const struct prio_def prio_node_prefer_avoid_pods_priority = {
    .name = PRIO_NAME_NODE_PREFER_AVOID_PODS,
    .aliases = NULL,
    .flags = PRIO_DEFAULT,
    .default_weight = 10000,
    .needs = 0,
    .parse_args = NULL,
    .plugins = { &prio_plugin_node_prefer_avoid_pods },
    .own = NULL,
    .gate_off = NULL,
    .doc = "avoids nodes whose preferAvoidPods annotation names the pod's "
           "controller",
};
