/*
 * doctor.h: `check POLICY --scheduler-config FILE [--kube-version 1.x]
 * [--url-prefix P]`, the wiring doctor: does kube-scheduler, configured
 * by FILE (a Policy with `extenders`, or a KubeSchedulerConfiguration
 * v1beta1..v1), call the server that serves POLICY correctly? Each
 * problem is printed on its own line, named by where it is in FILE.
 */
#ifndef SERVER_CLI_DOCTOR_H
#define SERVER_CLI_DOCTOR_H

#include <stdio.h>

#include "policy/policy.h"

struct doctor_opts {
    const char *sched_path;   /* --scheduler-config */
    const char *kube_version; /* --kube-version "1.20" or NULL */
    const char *url_prefix;   /* serve's --url-prefix ("" by default) */
    const struct policy_load_opts *load;
};

/*
 * Check the wiring of served (the Policy `serve` serves) against
 * o->sched_path; the verdict goes to out, problems and notes included.
 * 0: correct; 1: problems (or FILE unreadable, named on out); 2: a bad
 * --kube-version.
 */
int doctor_run(FILE *out, const struct policy *served,
               const struct doctor_opts *o);

#endif
