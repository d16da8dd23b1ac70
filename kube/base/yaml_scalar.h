/*
 * yaml_scalar.h: what a YAML scalar means once Kubernetes turns YAML into
 * JSON (sigs.k8s.io/yaml over gopkg.in/yaml.v2, YAML 1.1 resolution): a
 * plain `yes` is true, `0x1F` is 31, `~` is null, a quoted "yes" a string.
 */
#ifndef KUBE_BASE_YAML_SCALAR_H
#define KUBE_BASE_YAML_SCALAR_H

#include <stdbool.h>
#include <stddef.h>

enum yaml_scalar_kind {
    YAML_SCALAR_STRING,
    YAML_SCALAR_NULL,
    YAML_SCALAR_TRUE,
    YAML_SCALAR_FALSE,
    YAML_SCALAR_NUMBER, /* num holds JSON number text, d its value */
    YAML_SCALAR_BAD,    /* a number JSON cannot hold (.inf, .nan) */
};

/* Room for the JSON text of any number resolve gives. */
#define YAML_NUM_TEXT_MAX 40

struct yaml_scalar {
    enum yaml_scalar_kind kind;
    double d;
    char num[YAML_NUM_TEXT_MAX];
};

/*
 * Resolve the scalar s[0..len). plain: written without quotes or a block
 * indicator (only plain scalars are resolved). tag: its explicit tag
 * ("tag:yaml.org,2002:str", ...) or NULL. Fills *out.
 */
void yaml_scalar_resolve(const char *s, size_t len, bool plain, const char *tag,
                         struct yaml_scalar *out);

#endif
