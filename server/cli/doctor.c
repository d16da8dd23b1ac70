/*
 * doctor.c: the wiring doctor (doctor.h): kube-scheduler's file read as a
 * Policy (the file itself, or a KubeSchedulerConfiguration through the
 * one reader policy/ksc_read.c), its apiVersion against the kube-scheduler
 * versions that read it, its extenders (doctor_ext.c), and the split's two
 * halves: no predicate or priority both in kube-scheduler's file and in
 * the served Policy.
 */
#include "server/cli/doctor.h"

#include "server/cli/doctor_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "policy/ksc_read.h"

/*
 * Which kube-scheduler minor versions read a file (max 0: still read).
 * KEP-785 (sig-scheduling, scheduler component config API), history:
 * v1beta1 in 1.19 (kubernetes PR #91420), v1beta2 in 1.22, v1beta3 in
 * 1.23, v1 in 1.25; v1beta1 and the Policy API removed in 1.23; v1beta2
 * removed in 1.28 (PR #117649), v1beta3 in 1.29 (PR #119994). The Policy's
 * lower bound is this project's oldest (v1.13).
 */
struct api_span {
    const char *name;
    int min, max;
};

static const struct api_span spans[] = {
    { "Policy", 13, 22 },  { "v1beta1", 19, 22 }, { "v1beta2", 22, 27 },
    { "v1beta3", 23, 28 }, { "v1", 25, 0 },       { NULL, 0, 0 },
};

static void vsay(struct doctor *d, const char *kind, const char *fmt,
                 va_list ap)
{
    fprintf(d->out, "%s: %s: ", kind, d->file);
    vfprintf(d->out, fmt, ap);
    fputc('\n', d->out);
}

void doctor_problem(struct doctor *d, const char *fmt, ...)
{
    va_list ap;

    d->problems++;
    va_start(ap, fmt);
    vsay(d, "problem", fmt, ap);
    va_end(ap);
}

void doctor_note(struct doctor *d, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsay(d, "note", fmt, ap);
    va_end(ap);
}

static bool named(unsigned origin)
{
    return origin & (POLICY_ORIGIN_FILE | POLICY_ORIGIN_DEFAULT);
}

size_t doctor_served_preds(const struct policy *p, const char **first)
{
    size_t i, n = 0;

    for (i = 0; i < p->n_preds; i++) {
        if (!named(p->preds[i].origin))
            continue;
        if (!n++)
            *first = p->preds[i].def->name;
    }
    return n;
}

/* "1.20", "v1.20" or "1.20.2": 20; -1 when it is not a 1.x version. */
static int parse_minor(const char *v)
{
    char *end;
    long m;

    if (*v == 'v')
        v++;
    if (strncmp(v, "1.", 2) || v[2] < '0' || v[2] > '9')
        return -1;
    m = strtol(v + 2, &end, 10);
    if (m > 99 || (*end && *end != '.'))
        return -1;
    return (int)m;
}

static void check_version(struct doctor *d, const char *version, int minor)
{
    const struct api_span *s;
    char reads[96] = "";

    for (s = spans; s->name && strcmp(s->name, version); s++)
        ;
    if (!s->name)
        return;
    if (s->max)
        fprintf(d->out, "%s: %s: read by kube-scheduler v1.%d-v1.%d\n", d->file,
                version, s->min, s->max);
    else
        fprintf(d->out, "%s: %s: read by kube-scheduler v1.%d and later\n",
                d->file, version, s->min);
    if (minor < 0 || (minor >= s->min && (!s->max || minor <= s->max)))
        return;
    for (s = spans; s->name; s++) {
        if (minor >= s->min && (!s->max || minor <= s->max))
            snprintf(reads + strlen(reads), sizeof(reads) - strlen(reads),
                     "%s%s", *reads ? ", " : "", s->name);
    }
    doctor_problem(d,
                   "apiVersion: %s is not read by kube-scheduler v1.%d "
                   "(v1.%d reads: %s)",
                   version, minor, minor, *reads ? reads : "none of these");
}

/* kube-scheduler's file as a Policy; *version names its API. */
static int load_sched(struct doctor *d, struct policy **out, char *version,
                      bool *plugins_read, struct err *e)
{
    struct policy_ksc_info info;
    const char *src = NULL;
    size_t len;
    char *text, *buf = policy_ksc_read_file(d->file, &len, e);
    int rc;

    if (!buf)
        return -1;
    if (!policy_ksc_is_config(buf, len)) {
        free(buf);
        strcpy(version, "Policy");
        *plugins_read = true;
        return policy_load_file(d->file, d->o->load, out, e);
    }
    text = policy_ksc_wiring_text(d->file, buf, len, NULL, &info, &src, e);
    free(buf);
    if (!text)
        return -1;
    strcpy(version, info.version);
    *plugins_read = info.plugins_read;
    rc = policy_load_buffer(src, text, strlen(text), d->o->load, out, e);
    free(text);
    free((char *)src);
    return rc;
}

/* Whether two plugin lists share a plugin (by name). */
static bool share(const struct kpe_plugin_ref *const *a, size_t na,
                  const struct kpe_plugin_ref *const *b, size_t nb)
{
    size_t i, j;

    for (i = 0; i < na; i++) {
        for (j = 0; j < nb; j++) {
            if (!strcmp(a[i]->name, b[j]->name))
                return true;
        }
    }
    return false;
}

/* Whether a served predicate runs a plugin kube-scheduler's side runs. */
static bool pred_twice(const struct policy *s, const struct policy_pred *u)
{
    const struct kpe_plugin_ref *a[KPE_MAX_PLUGINS], *b[KPE_MAX_PLUGINS];
    size_t na = pred_def_refs(u->def, a), j;

    for (j = 0; j < s->n_preds; j++) {
        if (named(s->preds[j].origin) &&
            share(a, na, b, pred_def_refs(s->preds[j].def, b)))
            return true;
    }
    return false;
}

static bool prio_twice(const struct policy *s, const struct policy_prio *u)
{
    const struct kpe_plugin_ref *a[KPE_MAX_PLUGINS], *b[KPE_MAX_PLUGINS];
    size_t k, l, j;

    for (k = 0; k < u->n_keys; k++) {
        size_t na = prio_def_refs(u->keys[k], a);

        for (j = 0; j < s->n_prios; j++) {
            for (l = 0; l < s->prios[j].n_keys; l++) {
                if (share(a, na, b, prio_def_refs(s->prios[j].keys[l], b)))
                    return true;
            }
        }
    }
    return false;
}

/*
 * The split's halves: a served predicate or priority whose v1.22 plugin
 * kube-scheduler's side also runs is evaluated twice (compared by plugin,
 * so GeneralPredicates meets a profile's NodeResourcesFit).
 */
static void check_coverage(struct doctor *d)
{
    const struct policy *v = d->served;
    size_t i;

    for (i = 0; i < v->n_preds; i++) {
        if (named(v->preds[i].origin) && pred_twice(d->sched, &v->preds[i]))
            doctor_problem(d,
                           "predicate %s is in both halves (here and in "
                           "%s): evaluated twice",
                           v->preds[i].def->name, v->source);
    }
    for (i = 0; i < v->n_prios; i++) {
        if (prio_twice(d->sched, &v->prios[i]))
            doctor_problem(d,
                           "priority %s is in both halves (here and in %s): "
                           "its score counts twice",
                           v->prios[i].def->name, v->source);
    }
}

int doctor_run(FILE *out, const struct policy *served,
               const struct doctor_opts *o)
{
    struct doctor d = { out, o->sched_path, o, served, NULL, 0 };
    struct policy *sched = NULL;
    struct err e;
    char version[16];
    bool plugins_read = false;
    int minor = -1;

    if (o->kube_version && (minor = parse_minor(o->kube_version)) < 0) {
        fprintf(stderr,
                "check: --kube-version: expected 1.x (e.g. 1.20), got "
                "\"%s\"\n",
                o->kube_version);
        return 2;
    }
    err_clear(&e);
    if (load_sched(&d, &sched, version, &plugins_read, &e) < 0) {
        fprintf(out, "problem: %s\n", e.msg);
        return 1;
    }
    d.sched = sched;
    check_version(&d, version, minor);
    doctor_extenders(&d);
    if (plugins_read)
        check_coverage(&d);
    else
        doctor_note(&d,
                    "the profiles' plugins (%s) are not read: that no "
                    "plugin repeats a served predicate or priority is not "
                    "checked",
                    version);
    if (d.problems)
        fprintf(out,
                "%s: %d problem%s: kube-scheduler does not call %s "
                "correctly\n",
                d.file, d.problems, d.problems == 1 ? "" : "s", served->source);
    else
        fprintf(out, "%s: kube-scheduler calls %s correctly\n", d.file,
                served->source);
    policy_free(sched);
    return d.problems ? 1 : 0;
}
