/*
 * bad_plugin.c: plugins that the server must refuse, for
 * tests/cli/test_plugins.sh. One source, one fault per -D switch:
 *   -DNO_ENTRY      no kpe_plugin_init
 *   -DNO_MAGIC      no KPE_PLUGIN_MAGIC
 *   -DBAD_VERSION   built for API version 99
 *   -DFAIL_INIT     kpe_plugin_init returns 7
 *   -DPRED=Name     registers a predicate of that name
 *   -DPRIO=Name     registers a priority of that name
 *   -DARG_KEY=k     the predicate takes an argument with that key
 *   -DCRASH         the predicate's filter dereferences NULL
 *   -DHANG          the predicate's filter never returns
 */
#include <stddef.h>
#include <unistd.h>

#include <kube-policy-extender/plugin.h>

#define STR(x)  #x
#define XSTR(x) STR(x)

#ifdef BAD_VERSION
const int kpe_plugin_api_version = 99;
#elif !defined(NO_MAGIC)
KPE_PLUGIN_MAGIC;
#endif

__attribute__((unused)) static int fits(const void *arg,
                                        const struct kpe_pod *pod,
                                        const struct kpe_node *node,
                                        const char **reason)
{
    (void)arg;
    (void)pod;
    (void)node;
    (void)reason;
#ifdef CRASH
    return *(volatile int *)arg;
#endif
#ifdef HANG
    for (;;)
        sleep(1);
#endif
    return KPE_FIT;
}

__attribute__((unused)) static int zero(const void *arg,
                                        const struct kpe_pod *pod,
                                        const struct kpe_node *node,
                                        int64_t *score)
{
    (void)arg;
    (void)pod;
    (void)node;
    *score = 0;
    return 0;
}

struct bad_arg {
    const char *s;
};

static const struct kpe_plugin_arg_field bad_fields[] = {
    { "s", KPE_PLUGIN_ARG_STRING, offsetof(struct bad_arg, s), NULL },
};

#ifdef ARG_KEY
static const struct kpe_plugin_args bad_args = {
    XSTR(ARG_KEY), sizeof(struct bad_arg), bad_fields, 1, "test",
};
#define ARGS (&bad_args)
#else
#define ARGS NULL
#endif

#ifdef PRED
static const struct kpe_predicate pred = {
    XSTR(PRED), 0,    "test", (const char *const[]){ "test reason", NULL },
    fits,       ARGS,
};
#endif
#ifdef PRIO
static const struct kpe_priority prio = { XSTR(PRIO), 0, "test", zero, NULL };
#endif

#ifndef NO_ENTRY
int kpe_plugin_init(const struct kpe_plugin_host *h, int api_version)
{
    (void)api_version;
    (void)bad_fields;
#ifdef FAIL_INIT
    return 7;
#endif
#ifdef PRED
    if (h->register_predicate(h, &pred) != 0)
        return -1;
#endif
#ifdef PRIO
    if (h->register_priority(h, &prio) != 0)
        return -1;
#endif
    (void)h;
    return 0;
}
#else
int bad_plugin_unused(void);
int bad_plugin_unused(void)
{
    return (int)sizeof(bad_fields);
}
#endif
