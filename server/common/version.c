/*
 * version.c: the version string shown by --version and GET /version.
 */
#include "server/common/version.h"

#include <cjson/cJSON.h>
#include <curl/curlver.h>
#include <event2/event.h>
#include <stdio.h>

#ifndef KPE_VERSION
#define KPE_VERSION "0.0.0"
#endif
#ifndef KPE_GIT_REV
#define KPE_GIT_REV "unknown"
#endif

const char *kpe_version(void)
{
    return KPE_VERSION;
}

const char *kpe_git_revision(void)
{
    return KPE_GIT_REV;
}

void kpe_print_version(FILE *f)
{
    fprintf(f, "kube-policy-extender %s (git %s)\n", KPE_VERSION, KPE_GIT_REV);
    fprintf(f, "libevent %s, cJSON %s, libcurl %s\n", event_get_version(),
            cJSON_Version(), LIBCURL_VERSION);
    fprintf(f, "reference: kube-scheduler v1.22 legacy Policy semantics\n");
}
