/*
 * policy_yaml.c: the Policy written in YAML. kube-scheduler v1.20-v1.22
 * reads --policy-config-file through the universal decoder, which turns
 * YAML into JSON (sigs.k8s.io/yaml, strict: the first document only, a
 * key given twice is an error) before decoding; so do we, and then read
 * the tree as policy_json.c does.
 */
#include "policy/policy.h"

#include <cjson/cJSON.h>

#include "kube/base/yaml_reader.h"
#include "policy/policy_internal.h"

int policy_parse_yaml(struct policy *p, const char *buf, size_t len,
                      struct err *e)
{
    struct yaml_notes notes;
    struct arena tree;
    cJSON *root;
    int rc;

    arena_init(&tree, 0);
    rc = yaml_parse_one(&tree, buf, len, &root, &notes, e);
    if (rc == 0 && notes.dup[0])
        rc = err_set(e,
                     "%s (v1.22's strict decoder refuses a Policy with "
                     "a repeated key)",
                     notes.dup);
    if (rc == 0)
        rc = policy_decode_tree(p, root, e);
    if (rc == 0 && notes.more_docs)
        policy_warn(p, "only the first YAML document is the Policy; the "
                       "rest is ignored, as v1.22 ignores it");
    arena_destroy(&tree);
    return rc;
}
