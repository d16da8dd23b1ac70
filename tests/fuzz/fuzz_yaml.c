/*
 * fuzz_yaml.c: libFuzzer target for YAML input (kube/base/yaml_reader.h,
 * kube/parse/parse_yaml.c, kube/base/doc_format.h): every input is sniffed,
 * read as a YAML snapshot (every document, list items streamed), as one YAML
 * tree and as a Pod, and loaded as a YAML Policy. Failures must carry a
 * message. A snapshot read from the buffer and from a file (which streams
 * and may rewind for a second pass) must agree. The input buffer is
 * exactly `size` bytes, with no NUL after it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "kube/base/arena.h"
#include "kube/base/doc_format.h"
#include "kube/base/err.h"
#include "kube/parse/parse.h"
#include "kube/base/yaml_reader.h"
#include "policy/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "yaml: %s%s%s\n", what, detail ? ": " : "",
            detail ? detail : "");
    abort();
}

/* What a snapshot load gave: the verdict, the message, the counts. */
struct outcome {
    int rc;
    struct err e;
    size_t counts[3];
};

static void snapshot(const char *text, size_t size, int from_file,
                     struct outcome *out)
{
    struct kube_objects objs;
    struct arena a;
    FILE *f = NULL;

    memset(out, 0, sizeof(*out));
    memset(&objs, 0, sizeof(objs));
    arena_init(&a, 0);
    if (from_file) {
        f = fmemopen((void *)text, size ? size : 1, "rb");
        if (!f)
            fail("fmemopen failed", NULL);
        if (size == 0)
            fgetc(f); /* fmemopen wants a non-empty buffer: empty it */
        out->rc = kube_parse_yaml_file(&a, f, &objs, &out->e);
        fclose(f);
    } else {
        out->rc = kube_parse_yaml(&a, text, size, &objs, &out->e);
    }
    if (out->rc < 0 && out->e.msg[0] == '\0')
        fail("a refused snapshot has no message", NULL);
    out->counts[0] = objs.n_nodes;
    out->counts[1] = objs.n_pods;
    out->counts[2] = objs.n_skipped;
    arena_destroy(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size ? size : 1);
    struct outcome buf, file;
    struct arena a;
    struct err e;
    struct kube_pod pod;
    struct policy *p = NULL;
    struct policy_load_opts o = { .format = POLICY_FORMAT_YAML };
    cJSON *root;

    if (!text)
        return 0;
    memcpy(text, data, size);
    err_clear(&e);
    if (doc_format_sniff(text, size, &e) == DOC_FORMAT_UNKNOWN &&
        e.msg[0] == '\0')
        fail("an unknown format has no message", NULL);
    snapshot(text, size, 0, &buf);
    snapshot(text, size, 1, &file);
    if (buf.rc != file.rc || strcmp(buf.e.msg, file.e.msg) ||
        memcmp(buf.counts, file.counts, sizeof(buf.counts)))
        fail("buffer and file loads differ", buf.e.msg);
    arena_init(&a, 0);
    err_clear(&e);
    if (yaml_parse_one(&a, text, size, &root, NULL, &e) < 0 && !e.msg[0])
        fail("a refused tree has no message", NULL);
    err_clear(&e);
    if (kube_parse_pod_text(&a, text, size, &pod, &e) < 0 && !e.msg[0])
        fail("a refused pod has no message", NULL);
    arena_destroy(&a);
    err_clear(&e);
    if (policy_load_buffer("f.yaml", text, size, &o, &p, &e) < 0 && !e.msg[0])
        fail("a refused policy has no message", NULL);
    policy_free(p);
    free(text);
    return 0;
}
