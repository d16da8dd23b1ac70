/*
 * ksc_read.h: a KubeSchedulerConfiguration profile read back into the
 * project's resolved policy. The profile's filter and score plugins
 * (kube-scheduler's defaults merged with its enabled and disabled lists),
 * their weights and pluginConfig args are mapped onto the Policy
 * predicates and priorities that produce them (the inverse of the
 * profile policy_convert.c builds), and that Policy is loaded as any
 * other, so it runs through the same engine.
 *
 * Read: kubescheduler.config.k8s.io/v1beta1 (kube-scheduler v1.19-v1.21)
 * and v1beta2 (v1.22), the versions whose plugins this project
 * implements. Later versions (v1beta3, v1) are refused with a message
 * saying so (policy_ksc_wiring_text reads their extenders only); so is what no
 * Policy can say (an extender, a plugin without a Policy equivalent, resource
 * weights other than cpu=1 and memory=1).
 */
#ifndef POLICY_KSC_READ_H
#define POLICY_KSC_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "kube/base/err.h"
#include "policy/policy.h"

/*
 * Read the profile whose schedulerName is `profile` (NULL: the first) of
 * the configuration in buf[0..len) (YAML or JSON; `name` is used in
 * messages) into a new policy (*out; free with policy_free), loaded with
 * opts (may be NULL). p->source is "NAME (profile P)". Returns 0, or -1
 * with e set: "ksc.yaml: profiles[0].plugins.score.enabled[2]: plugin
 * \"Foo\" has no Policy priority".
 */
int policy_load_ksc_buffer(const char *name, const char *buf, size_t len,
                           const char *profile,
                           const struct policy_load_opts *opts,
                           struct policy **out, struct err *e);

/* The same for a file (read whole, at most 16 MiB). */
int policy_load_ksc_file(const char *path, const char *profile,
                         const struct policy_load_opts *opts,
                         struct policy **out, struct err *e);

/* The profile's extenders are the caller's business (not refused). */
#define POLICY_KSC_EXTENDERS 0x1u

/*
 * The Policy document (JSON text, malloc'd) the profile reads as, before
 * it is loaded: the step policy_load_ksc_buffer takes, for callers that
 * add to it (the Policy an extender serves). *source gets "NAME (profile
 * P)" (malloc'd). NULL with e set.
 */
char *policy_ksc_policy_text(const char *name, const char *buf, size_t len,
                             const char *profile, unsigned flags,
                             const char **source, struct err *e);

/*
 * For `check --scheduler-config` (the wiring doctor): every version from
 * v1beta1 to v1 is read and the extenders are written into the Policy
 * (ksc_extenders.c says which fields); the profile's plugins only where
 * they are read (v1beta1, v1beta2: plugins_read), else the Policy has
 * `predicates: []` and `priorities: []`. info->version gets the version
 * ("v1beta2"). Otherwise as policy_ksc_policy_text.
 */
struct policy_ksc_info {
    char version[16];
    bool plugins_read;
};
char *policy_ksc_wiring_text(const char *name, const char *buf, size_t len,
                             const char *profile, struct policy_ksc_info *info,
                             const char **source, struct err *e);

/* buf[0..len) is YAML or JSON whose kind is KubeSchedulerConfiguration. */
bool policy_ksc_is_config(const char *buf, size_t len);

/* A whole file (at most 16 MiB), malloc'd and NUL-terminated; NULL, e. */
char *policy_ksc_read_file(const char *path, size_t *len, struct err *e);

#endif
