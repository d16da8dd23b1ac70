/*
 * parse.h: Kubernetes JSON (as the API server and `kubectl get -o json`
 * print it) into the structs of kube/model/types.h. One pass: the cJSON tree is
 * deleted before these functions return; results live in the arena.
 * Errors name the JSON path and quote the value:
 *   items[4].spec.containers[2].resources.requests.cpu: invalid quantity
 * "1.5.3"
 */
#ifndef KUBE_PARSE_PARSE_H
#define KUBE_PARSE_PARSE_H

#include <stddef.h>
#include <stdio.h>

#include "kube/base/arena.h"
#include "kube/base/err.h"
#include "kube/model/types.h"

struct cJSON;

/* Documents nested deeper than this are refused before parsing. */
#define KUBE_PARSE_MAX_DEPTH 256

/*
 * Parse one JSON document: an object of a modelled kind, or a List /
 * <Kind>List whose items are added in order. Kinds we do not model are
 * counted in objs->n_skipped. objs must be zeroed before first use and may
 * accumulate several documents. Returns 0, or -1 with e set.
 */
int kube_parse_document(struct arena *a, const char *json, size_t len,
                        struct kube_objects *objs, struct err *e);

/*
 * kube_parse_document through one tree of the whole text: the same
 * results and errors, at several times the memory. kube_parse_document
 * reads a top-level object one list item at a time; this is the reference
 * it is tested and fuzzed against.
 */
int kube_parse_document_tree(struct arena *a, const char *json, size_t len,
                             struct kube_objects *objs, struct err *e);

/*
 * YAML (kube/base/yaml_reader.h): every document of a stream joined with ---
 * (an object, a List or a <Kind>List each; empty documents are skipped)
 * into objs, as kube_parse_document does for JSON, list items one at a
 * time. _file reads an open file as it goes and never holds it whole.
 * Errors: YAML syntax with line and column; an item that fails to decode
 * gets its JSON path and where it starts ("line 40, column 3: items[2].
 * spec..."); documents after the first are named ("document 2 (line 30):").
 */
int kube_parse_yaml(struct arena *a, const char *buf, size_t len,
                    struct kube_objects *objs, struct err *e);
int kube_parse_yaml_file(struct arena *a, FILE *f, struct kube_objects *objs,
                         struct err *e);

/*
 * One Pod from a file's text, JSON or YAML (told by content; YAML reads
 * the first document, as Kubernetes does).
 */
int kube_parse_pod_text(struct arena *a, const char *text, size_t len,
                        struct kube_pod *out, struct err *e);

/*
 * A parsed document that must be one Pod (its kind, if any, "Pod"), or a
 * workload (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job,
 * ReplicationController, CronJob) whose pod template is decoded as the
 * pod: named after the workload, in its namespace unless the template
 * says otherwise, owned by it (controller reference) except for a
 * Deployment or CronJob.
 */
int kube_pod_from_document(struct arena *a, const struct cJSON *root,
                           struct kube_pod *out, struct err *e);

/* Parse a JSON text holding exactly one Pod (or one Node). */
int kube_parse_pod(struct arena *a, const char *json, size_t len,
                   struct kube_pod *out, struct err *e);
int kube_parse_node(struct arena *a, const char *json, size_t len,
                    struct kube_node *out, struct err *e);

/*
 * Decode an already-parsed object. `path` prefixes error paths (e.g.
 * "Pod" or "Nodes.items[3]"); NULL or "" for none.
 */
int kube_pod_from_cjson(struct arena *a, const struct cJSON *j,
                        const char *path, struct kube_pod *out, struct err *e);
int kube_node_from_cjson(struct arena *a, const struct cJSON *j,
                         const char *path, struct kube_node *out,
                         struct err *e);

/*
 * Decode an already-parsed object of a modelled kind into a zeroed struct
 * of that kind (struct kube_pod for KUBE_KIND_POD, struct kube_workload
 * for replica and stateful sets, ...) allocated from a; *out points to
 * it. The object's own "kind" member is not consulted (list items often
 * lack it). Returns 0, or -1 with e set.
 */
int kube_object_from_cjson(struct arena *a, enum kube_kind kind,
                           const struct cJSON *j, const char *path, void **out,
                           struct err *e);

/*
 * Point objs' array of kind (struct kube_pod * for KUBE_KIND_POD, ...) at
 * arr[0..n), which must outlive objs. Returns 0, or -1 when the kind is
 * not modelled.
 */
int kube_objects_put(struct kube_objects *objs, enum kube_kind kind, void **arr,
                     size_t n);

/* The kind of a document's "kind" string; KUBE_KIND_UNKNOWN otherwise. */
enum kube_kind kube_kind_from_string(const char *kind);

#endif
