/*
 * plugin_load.c: `--plugin FILE.so` (see plugin_load.h): the checks on the
 * file, dlopen, the API magic and entry point, registration with rollback,
 * and unloading at exit. Models: redis `loadmodule`, PostgreSQL's
 * PG_MODULE_MAGIC; the permission check is sshd's StrictModes, up to
 * the root.
 */
#include "engine/plugin_load.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/plugin_call.h"
#include "engine/plugin_host.h"
#include "predicates/predicates.h"
#include "priorities/priorities.h"

struct loaded {
    char *path;   /* as given (malloc'd) */
    void *handle; /* dlopen's */
    /* handed to kpe_plugin_init; the plugin may keep the pointer */
    struct kpe_plugin_host host;
    /* the registry's runtime rows [pred_begin, pred_end) are this file's */
    size_t pred_begin, pred_end, prio_begin, prio_end;
};

/* Written at start only, read-only while threads run, emptied at exit. */
static struct loaded files[ENGINE_MAX_PLUGIN_FILES];
static size_t n_files;

/* What one kpe_plugin_init call registered, and its first refusal. */
struct load_ctx {
    struct err err;
    bool failed;
    size_t n_registered;
};

static int reg_predicate(const struct kpe_plugin_host *h,
                         const struct kpe_predicate *p)
{
    struct load_ctx *c = h->ctx;
    struct err e;

    if (!c || c->failed) /* after kpe_plugin_init, or refused already */
        return -1;
    if (plugin_host_add_predicate(p, &e) < 0) {
        const char *other =
            p ? engine_plugin_file_of("predicate", p->name) : NULL;

        c->err = e;
        if (other)
            err_set(&c->err,
                    "predicate \"%s\" is already registered by plugin %s",
                    p->name, other);
        c->failed = true;
        return -1;
    }
    c->n_registered++;
    return 0;
}

static int reg_priority(const struct kpe_plugin_host *h,
                        const struct kpe_priority *p)
{
    struct load_ctx *c = h->ctx;
    struct err e;

    if (!c || c->failed) /* after kpe_plugin_init, or refused already */
        return -1;
    if (plugin_host_add_priority(p, &e) < 0) {
        const char *other =
            p ? engine_plugin_file_of("priority", p->name) : NULL;

        c->err = e;
        if (other)
            err_set(&c->err,
                    "priority \"%s\" is already registered by plugin %s",
                    p->name, other);
        c->failed = true;
        return -1;
    }
    c->n_registered++;
    return 0;
}

/*
 * One folder on the way to the plugin (real is cut at its end): owned by
 * root or by us, and writable by nobody else; an ancestor may be
 * world-writable when sticky (/tmp), as no one else can then rename what
 * is ours in it, but not the plugin's own folder.
 */
static int check_folder(const char *path, const char *dir, int own,
                        struct err *e)
{
    struct stat st;
    mode_t mode;

    if (stat(*dir ? dir : "/", &st) != 0)
        return err_set(e, "%s: cannot open its folder %s: %s", path,
                       *dir ? dir : "/", strerror(errno));
    mode = st.st_mode & 07777;
    if (st.st_uid != 0 && st.st_uid != geteuid())
        return err_set(e,
                       "%s: refused: %s %s is owned by uid %u, neither root "
                       "nor the server's user",
                       path, own ? "its folder" : "the ancestor folder",
                       *dir ? dir : "/", (unsigned)st.st_uid);
    if ((mode & (S_IWGRP | S_IWOTH)) && (own || !(mode & S_ISVTX)))
        return err_set(e,
                       "%s: refused: %s %s is group- or world-writable "
                       "(mode %04o)%s; chmod go-w it",
                       path, own ? "its folder" : "the ancestor folder",
                       *dir ? dir : "/", (unsigned)mode,
                       own ? "" : " and not sticky");
    return 0;
}

/*
 * sshd's StrictModes (auth.c safe_path) for the file and every folder up
 * to the root: owned by root or by us, writable by nobody else; else
 * another user could swap the file, its folder or any folder above.
 * real gets the resolved path.
 */
static int check_file(const char *path, char *real, struct err *e)
{
    struct stat st;
    char dir[PATH_MAX], *slash;
    int rc = 0, own = 1;

    if (stat(path, &st) != 0)
        return err_set(e, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return err_set(e, "%s: not a regular file", path);
    if (!realpath(path, real))
        return err_set(e, "%s: cannot resolve: %s", path, strerror(errno));
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return err_set(e,
                       "%s: refused: the file is group- or world-writable "
                       "(mode %04o); chmod go-w it",
                       path, (unsigned)(st.st_mode & 07777));
    if (st.st_uid != 0 && st.st_uid != geteuid())
        return err_set(e,
                       "%s: refused: owned by uid %u, neither root nor the "
                       "server's user",
                       path, (unsigned)st.st_uid);
    /* realpath: absolute, no "." or "..", no symbolic link left. */
    memcpy(dir, real, strlen(real) + 1);
    while (rc == 0 && *dir && (slash = strrchr(dir, '/')) != NULL) {
        *slash = '\0';
        rc = check_folder(path, dir, own, e);
        own = 0;
    }
    return rc;
}

/* dlopen, the magic and the entry point; *handle stays NULL on failure. */
static int open_plugin(const char *path, const char *real, void **handle,
                       int (**init)(const struct kpe_plugin_host *, int),
                       struct err *e)
{
    const int *magic;
    void *h = dlopen(real, RTLD_NOW | RTLD_LOCAL);

    if (!h)
        return err_set(e, "%s: not a loadable shared object: %s", path,
                       dlerror());
    *(void **)(void *)init = dlsym(h, KPE_PLUGIN_ENTRY_SYMBOL);
    if (!*init) {
        dlclose(h);
        return err_set(e,
                       "%s: no entry point " KPE_PLUGIN_ENTRY_SYMBOL
                       "(): not a kube-policy-extender plugin",
                       path);
    }
    magic = dlsym(h, KPE_PLUGIN_MAGIC_SYMBOL);
    if (!magic) {
        dlclose(h);
        return err_set(
            e,
            "%s: no KPE_PLUGIN_MAGIC (symbol " KPE_PLUGIN_MAGIC_SYMBOL
            "): rebuild it against kube-policy-extender/plugin.h",
            path);
    }
    if (*magic != KPE_PLUGIN_API_VERSION) {
        int built = *magic; /* read before the file is unmapped */

        dlclose(h);
        return err_set(e,
                       "%s: built for plugin API version %d, this server "
                       "speaks version %d",
                       path, built, KPE_PLUGIN_API_VERSION);
    }
    *handle = h;
    return 0;
}

int engine_plugin_load(const char *path, struct err *e)
{
    char real[PATH_MAX];
    struct load_ctx c;
    struct loaded *f = &files[n_files];
    int (*init)(const struct kpe_plugin_host *, int) = NULL;
    size_t preds = pred_registry_runtime(), prios = prio_registry_runtime();
    void *handle = NULL;
    int rc;

    if (n_files == ENGINE_MAX_PLUGIN_FILES)
        return err_set(e, "%s: more than %d plugin files", path,
                       ENGINE_MAX_PLUGIN_FILES);
    if (check_file(path, real, e) < 0 ||
        open_plugin(path, real, &handle, &init, e) < 0)
        return -1;
    memset(&c, 0, sizeof(c));
    memset(f, 0, sizeof(*f));
    plugin_host_fill(&f->host);
    f->host.ctx = &c;
    f->host.register_predicate = reg_predicate;
    f->host.register_priority = reg_priority;
    rc = init(&f->host, KPE_PLUGIN_API_VERSION);
    f->host.ctx = NULL; /* registration is over */
    if (c.failed)
        err_set(e, "%s: %s", path, c.err.msg);
    else if (rc != 0)
        err_set(e, "%s: " KPE_PLUGIN_ENTRY_SYMBOL "() failed (returned %d)",
                path, rc);
    else if (!c.n_registered)
        err_set(e, "%s: registered no predicate and no priority", path);
    if (c.failed || rc != 0 || !c.n_registered)
        goto fail;
    f->path = strdup(path);
    if (!f->path) {
        err_set(e, "%s: out of memory", path);
        goto fail;
    }
    f->handle = handle;
    /* A crash inside a plugin names it (engine/plugin_call.h). */
    plugin_call_install_fault_handler();
    f->pred_begin = preds;
    f->pred_end = pred_registry_runtime();
    f->prio_begin = prios;
    f->prio_end = prio_registry_runtime();
    n_files++;
    return 0;
fail:
    plugin_host_truncate(preds, prios);
    dlclose(handle);
    memset(f, 0, sizeof(*f));
    return -1;
}

void engine_plugins_unload(void)
{
    while (n_files > 0) {
        struct loaded *f = &files[--n_files];

        plugin_host_truncate(f->pred_begin, f->prio_begin);
        dlclose(f->handle);
        free(f->path);
        memset(f, 0, sizeof(*f));
    }
}

const char *engine_plugin_file_of(const char *kind, const char *name)
{
    size_t i, n, idx, first;

    if (!strcmp(kind, "predicate")) {
        const struct pred_def *d = pred_lookup(name);

        if (!d || !(d->flags & PRED_PLUGIN))
            return NULL;
        pred_registry(&n);
        first = n - pred_registry_runtime();
        idx = pred_index(d) - first;
        for (i = 0; i < n_files; i++) {
            if (idx >= files[i].pred_begin && idx < files[i].pred_end)
                return files[i].path;
        }
        return NULL;
    }
    {
        const struct prio_def *d = prio_lookup(name);

        if (!d || !(d->flags & PRIO_PLUGIN))
            return NULL;
        prio_registry(&n);
        first = n - prio_registry_runtime();
        idx = prio_index(d) - first;
        for (i = 0; i < n_files; i++) {
            if (idx >= files[i].prio_begin && idx < files[i].prio_end)
                return files[i].path;
        }
    }
    return NULL;
}
