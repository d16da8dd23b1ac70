/*
 * engine_state.c: the published policy + cluster state (see
 * engine_state.h).
 */
#include "engine/engine_state.h"

#include <stdlib.h>
#include <string.h>

#include "kube/cluster/snapshot_file.h"
#include "policy/policy.h"

struct cluster_ref *cluster_ref_load(const char *const *paths, size_t n,
                                     struct err *e)
{
    struct cluster_ref *c = calloc(1, sizeof(*c));

    if (!c) {
        err_set(e, "out of memory loading the cluster");
        return NULL;
    }
    atomic_init(&c->refs, 1);
    arena_init(&c->arena, 0);
    if (kube_snapshot_load_files(&c->arena, paths, n, &c->objs, e) < 0 ||
        cluster_build(&c->cluster, &c->objs, e) < 0) {
        arena_destroy(&c->arena);
        free(c);
        return NULL;
    }
    return c;
}

void cluster_ref_release(struct cluster_ref *c)
{
    if (!c || atomic_fetch_sub(&c->refs, 1) != 1)
        return;
    cluster_free(&c->cluster);
    arena_destroy(&c->arena);
    free(c);
}

void app_init(struct app *app, const char *policy_path,
              const char *const *cluster_paths, size_t n_cluster_paths,
              unsigned compat)
{
    memset(app, 0, sizeof(*app));
    pthread_mutex_init(&app->lock, NULL);
    app->policy_path = policy_path;
    app->cluster_paths = cluster_paths;
    app->n_cluster_paths = n_cluster_paths;
    app->compat = compat;
}

void app_release(struct app_state *st)
{
    if (!st || atomic_fetch_sub(&st->refs, 1) != 1)
        return;
    policy_free(st->policy);
    cluster_ref_release(st->cluster);
    free(st);
}

struct app_state *app_acquire(struct app *app)
{
    struct app_state *st;

    pthread_mutex_lock(&app->lock);
    st = app->cur;
    if (st)
        atomic_fetch_add(&st->refs, 1);
    pthread_mutex_unlock(&app->lock);
    return st;
}

/* Publish st (taking over its reference) and drop the old state. */
static void publish(struct app *app, struct app_state *st)
{
    struct app_state *old;

    pthread_mutex_lock(&app->lock);
    old = app->cur;
    app->cur = st;
    pthread_mutex_unlock(&app->lock);
    app_release(old);
}

static struct app_state *state_new(const struct app *app, struct policy *p,
                                   struct cluster_ref *c, struct err *e)
{
    struct app_state *st = calloc(1, sizeof(*st));

    if (!st) {
        err_set(e, "out of memory");
        return NULL;
    }
    if (eval_plans_build(p, &st->plans, e) < 0) {
        err_prefix(e, "%s: ", app->policy_path);
        free(st);
        return NULL;
    }
    atomic_init(&st->refs, 1);
    policy_extender_role(p, &st->role);
    st->policy = p;
    st->cluster = c;
    return st;
}

static int load_policy(struct app *app, struct policy **out, struct err *e)
{
    struct policy_load_opts o = { 0 };

    o.compat = app->compat;
    o.gates = app->gates;
    o.semantics = app->semantics;
    o.format = POLICY_FORMAT_AUTO;
    return policy_load_file(app->policy_path, &o, out, e);
}

int app_load(struct app *app, struct err *e)
{
    struct cluster_ref *c;
    struct policy *p = NULL;
    struct app_state *st;

    c = cluster_ref_load(app->cluster_paths, app->n_cluster_paths, e);
    if (!c)
        return -1;
    if (load_policy(app, &p, e) < 0) {
        cluster_ref_release(c);
        return -1;
    }
    st = state_new(app, p, c, e);
    if (!st) {
        policy_free(p);
        cluster_ref_release(c);
        return -1;
    }
    publish(app, st);
    return 0;
}

int app_reload_policy(struct app *app, struct err *e)
{
    struct app_state *cur = app_acquire(app), *st;
    struct policy *p = NULL;

    if (!cur)
        return app_load(app, e);
    if (load_policy(app, &p, e) < 0) {
        app_release(cur);
        return -1;
    }
    /* The new state shares the cluster snapshot. */
    atomic_fetch_add(&cur->cluster->refs, 1);
    st = state_new(app, p, cur->cluster, e);
    if (!st) {
        cluster_ref_release(cur->cluster);
        policy_free(p);
        app_release(cur);
        return -1;
    }
    app_release(cur);
    publish(app, st);
    return 0;
}

void app_destroy(struct app *app)
{
    publish(app, NULL);
    pthread_mutex_destroy(&app->lock);
}
