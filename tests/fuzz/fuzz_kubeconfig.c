/*
 * fuzz_kubeconfig.c: libFuzzer target for kubeconfig parsing
 * (kube_kubeconfig_parse, libyaml underneath): any text must either give
 * a connection or an error naming the file, never a crash or a leak. The
 * first line of the input, when it starts with "#ctx:", names a context to
 * select instead of current-context.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/client/kubeconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size ? size : 1);
    char ctx[64] = "";
    const char *context = NULL;
    struct kube_conn conn;
    struct err e;

    if (!text)
        return 0;
    memcpy(text, data, size);
    if (size > 5 && !memcmp(text, "#ctx:", 5)) {
        const char *nl = memchr(text, '\n', size);
        size_t n = nl ? (size_t)(nl - text) - 5 : size - 5;

        if (n < sizeof(ctx)) {
            memcpy(ctx, text + 5, n);
            ctx[n] = '\0';
            context = ctx;
        }
    }
    memset(&conn, 0, sizeof(conn));
    e.msg[0] = '\0';
    if (kube_kubeconfig_parse(text, size, "fuzz.yaml", context, &conn, &e) <
        0) {
        if (!strstr(e.msg, "fuzz.yaml")) {
            fprintf(stderr, "kubeconfig error does not name the file: %s\n",
                    e.msg);
            abort();
        }
    }
    kube_conn_free(&conn);
    free(text);
    return 0;
}
