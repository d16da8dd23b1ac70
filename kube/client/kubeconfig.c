/*
 * kubeconfig.c: connection settings from a kubeconfig (libyaml document
 * API), the in-cluster service account, or --master (see kubeconfig.h).
 * Mirrors client-go's clientcmd: context -> cluster + user, the same
 * conflicts rejected ("certificate-authority-data and
 * certificate-authority are both specified"), relative paths resolved
 * against the kubeconfig's directory.
 */
#include "kube/client/kubeconfig.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <yaml.h>

#define KC_MAX_FILE ((size_t)16 << 20)

char *kube_slurp_file(const char *path, size_t max, size_t *len, struct err *e)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0;

    if (!f) {
        err_set(e, "%s: %s", path, strerror(errno));
        return NULL;
    }
    for (;;) {
        size_t got;

        if (cap - n < 4096) {
            char *nb;

            cap = cap ? cap * 2 : 8192;
            nb = realloc(buf, cap + 1);
            if (!nb) {
                err_set(e, "%s: out of memory", path);
                goto fail;
            }
            buf = nb;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n > max) {
            err_set(e, "%s: larger than %zu bytes", path, max);
            goto fail;
        }
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        err_set(e, "%s: read error", path);
        goto fail;
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
fail:
    fclose(f);
    free(buf);
    return NULL;
}

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

char *kube_base64_decode(const char *in, size_t len, size_t *out_len, int *bad)
{
    char *out = malloc(len / 4 * 3 + 4);
    size_t i, n = 0, quad = 0, pad = 0;
    unsigned acc = 0;

    *bad = 0;
    if (!out)
        return NULL;
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)in[i];
        int v;

        if (c == '\r' || c == '\n')
            continue;
        if (c == '=') {
            /* Padding only in the last two places of a quad. */
            if (quad < 2)
                goto invalid;
            pad++;
            quad++;
            if (quad == 4) {
                /* Leftover bits are ignored (Go's non-strict decoding). */
                out[n++] = (char)(acc >> (pad == 2 ? 4 : 10));
                if (pad == 1)
                    out[n++] = (char)(acc >> 2);
                quad = 0;
                acc = 0;
            }
            continue;
        }
        v = b64_value(c);
        if (v < 0 || pad)
            goto invalid;
        acc = (acc << 6) | (unsigned)v;
        if (++quad == 4) {
            out[n++] = (char)(acc >> 16);
            out[n++] = (char)(acc >> 8);
            out[n++] = (char)acc;
            quad = 0;
            acc = 0;
        }
    }
    if (quad != 0)
        goto invalid;
    out[n] = '\0';
    *out_len = n;
    return out;
invalid:
    free(out);
    *bad = 1;
    return NULL;
}

int kube_header_value_check(const char *what, const char *v, size_t n,
                            struct err *e)
{
    size_t i;

    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)v[i];

        if (c < 0x20 || c == 0x7f)
            return err_set(e,
                           "%s: control character 0x%02x at byte %zu is not "
                           "allowed in an HTTP header",
                           what, c, i);
    }
    return 0;
}

int kube_server_url_check(const char *what, const char *url, struct err *e)
{
    const char *auth = strstr(url, "://"), *end;
    size_t i;

    for (i = 0; url[i]; i++) {
        unsigned char c = (unsigned char)url[i];

        if (c <= 0x20 || c == 0x7f)
            return err_set(e,
                           "%s: %s 0x%02x at byte %zu is not allowed in the "
                           "server URL",
                           what, c == ' ' ? "space" : "control character", c,
                           i);
    }
    auth = auth ? auth + 3 : url;
    end = auth + strcspn(auth, "/?#");
    if (memchr(auth, '@', (size_t)(end - auth)))
        return err_set(e,
                       "%s: a user name or password in the server URL is not "
                       "supported (basic auth is refused; use a token, "
                       "tokenFile or a client certificate)",
                       what);
    if (strpbrk(url, "?#"))
        return err_set(e,
                       "%s: a query (?) or fragment (#) is not allowed in the "
                       "server URL (API paths are appended to it)",
                       what);
    return 0;
}

void kube_conn_free(struct kube_conn *c)
{
    if (!c)
        return;
    free(c->server);
    free(c->ca);
    free(c->token);
    free(c->token_file);
    free(c->cert);
    free(c->key);
    free(c->namespace);
    free(c->origin);
    memset(c, 0, sizeof(*c));
}

/* ---- the YAML document ---- */

struct kc {
    yaml_document_t doc;
    const char *path; /* for messages */
    char *dir;        /* path's directory, "" for the current one */
    struct err *e;
};

/* A scalar's text; NULL for other nodes and for YAML nulls. */
static const char *scalar(const yaml_node_t *n)
{
    const char *v;

    if (!n || n->type != YAML_SCALAR_NODE)
        return NULL;
    v = (const char *)n->data.scalar.value;
    if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
        (!*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
         !strcmp(v, "NULL")))
        return NULL;
    return v;
}

static yaml_node_t *map_get(struct kc *k, const yaml_node_t *map,
                            const char *key)
{
    yaml_node_pair_t *p;

    if (!map || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        const char *s = scalar(yaml_document_get_node(&k->doc, p->key));

        if (s && !strcmp(s, key))
            return yaml_document_get_node(&k->doc, p->value);
    }
    return NULL;
}

static const char *map_str(struct kc *k, const yaml_node_t *map,
                           const char *key)
{
    return scalar(map_get(k, map, key));
}

/* YAML 1.1 booleans as go-yaml reads them; absent is false. */
static int map_bool(struct kc *k, const yaml_node_t *map, const char *key,
                    bool *out)
{
    static const char *const yes[] = { "true", "yes", "on", "y" };
    static const char *const no[] = { "false", "no", "off", "n" };
    const char *s = map_str(k, map, key);
    size_t i;

    *out = false;
    if (!s)
        return 0;
    for (i = 0; i < 4; i++) {
        if (!strcasecmp(s, yes[i])) {
            *out = true;
            return 0;
        }
        if (!strcasecmp(s, no[i]))
            return 0;
    }
    return err_set(k->e, "%s: not a boolean: \"%s\"", key, s);
}

/* The `inner` mapping of the element of list `list` whose name is name. */
static yaml_node_t *find_named(struct kc *k, const char *list, const char *name,
                               const char *inner)
{
    yaml_node_t *root = yaml_document_get_root_node(&k->doc);
    yaml_node_t *seq = map_get(k, root, list);
    yaml_node_item_t *it;

    if (!seq || seq->type != YAML_SEQUENCE_NODE)
        return NULL;
    for (it = seq->data.sequence.items.start; it < seq->data.sequence.items.top;
         it++) {
        yaml_node_t *el = yaml_document_get_node(&k->doc, *it);
        const char *n = map_str(k, el, "name");

        if (n && !strcmp(n, name)) {
            yaml_node_t *v = map_get(k, el, inner);

            /* An entry without its body is an empty one. */
            return v ? v : el;
        }
    }
    return NULL;
}

static char *xstrdup(struct kc *k, const char *s)
{
    char *d = strdup(s);

    if (!d)
        err_set(k->e, "out of memory");
    return d;
}

/* path made absolute against the kubeconfig's directory. */
static char *resolve_path(struct kc *k, const char *path)
{
    char *out;

    if (path[0] == '/' || !*k->dir)
        return xstrdup(k, path);
    out = malloc(strlen(k->dir) + strlen(path) + 2);
    if (!out) {
        err_set(k->e, "out of memory");
        return NULL;
    }
    sprintf(out, "%s/%s", k->dir, path);
    return out;
}

/*
 * One credential that comes as a file (`file_key`) or inline base64
 * (`data_key`); both set is an error, as clientcmd's validation says.
 * what: "cluster \"c\"" or "user \"u\"" for messages.
 */
static int read_blob(struct kc *k, const yaml_node_t *m, const char *what,
                     const char *file_key, const char *data_key, char **out,
                     size_t *out_len)
{
    const char *file = map_str(k, m, file_key);
    const char *data = map_str(k, m, data_key);
    char *p;
    int bad;

    if (file && data)
        return err_set(k->e, "%s: %s and %s are both specified", what, data_key,
                       file_key);
    if (data) {
        *out = kube_base64_decode(data, strlen(data), out_len, &bad);
        if (!*out)
            return err_set(k->e, "%s: %s: %s", what, data_key,
                           bad ? "invalid base64" : "out of memory");
        return 0;
    }
    if (!file)
        return 0;
    p = resolve_path(k, file);
    if (!p)
        return -1;
    *out = kube_slurp_file(p, KC_MAX_FILE, out_len, k->e);
    free(p);
    if (!*out)
        return err_prefix(k->e, "%s: %s: ", what, file_key);
    return 0;
}

static int load_cluster(struct kc *k, const char *name, struct kube_conn *c)
{
    char what[300], field[320];
    const yaml_node_t *m = find_named(k, "clusters", name, "cluster");
    const char *server;

    snprintf(what, sizeof(what), "cluster \"%s\"", name);
    if (!m)
        return err_set(k->e, "%s not found", what);
    server = map_str(k, m, "server");
    if (!server)
        return err_set(k->e, "%s: server is not set", what);
    snprintf(field, sizeof(field), "%s: server", what);
    if (kube_server_url_check(field, server, k->e) < 0)
        return -1;
    c->server = xstrdup(k, server);
    if (!c->server)
        return -1;
    while (*c->server && c->server[strlen(c->server) - 1] == '/')
        c->server[strlen(c->server) - 1] = '\0';
    if (map_bool(k, m, "insecure-skip-tls-verify", &c->insecure) < 0)
        return err_prefix(k->e, "%s: ", what);
    if (read_blob(k, m, what, "certificate-authority",
                  "certificate-authority-data", &c->ca, &c->ca_len) < 0)
        return -1;
    if (c->insecure && c->ca)
        return err_set(k->e,
                       "%s: specifying a root certificates file with the "
                       "insecure flag is not allowed",
                       what);
    return 0;
}

static int load_user(struct kc *k, const char *name, struct kube_conn *c)
{
    /* The as* keys ask for impersonation headers, which we do not send:
     * refused rather than silently acting as ourselves. */
    static const char *const unsupported[] = { "exec",      "auth-provider",
                                               "username",  "password",
                                               "as",        "as-uid",
                                               "as-groups", "as-user-extra" };
    char what[300], field[320];
    const yaml_node_t *m = find_named(k, "users", name, "user"), *tok;
    const char *s;
    size_t i;

    snprintf(what, sizeof(what), "user \"%s\"", name);
    if (!m)
        return err_set(k->e, "%s not found", what);
    for (i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++) {
        if (map_get(k, m, unsupported[i]))
            return err_set(k->e,
                           "%s: %s is not supported (use a token, "
                           "tokenFile or a client certificate)",
                           what, unsupported[i]);
    }
    snprintf(field, sizeof(field), "%s: token", what);
    tok = map_get(k, m, "token");
    /* The scalar's own length: a \0 escape must not cut the token short. */
    if ((s = scalar(tok)) &&
        (kube_header_value_check(field, s, tok->data.scalar.length, k->e) < 0 ||
         !(c->token = xstrdup(k, s))))
        return -1;
    if ((s = map_str(k, m, "tokenFile")) &&
        !(c->token_file = resolve_path(k, s)))
        return -1;
    if (read_blob(k, m, what, "client-certificate", "client-certificate-data",
                  &c->cert, &c->cert_len) < 0 ||
        read_blob(k, m, what, "client-key", "client-key-data", &c->key,
                  &c->key_len) < 0)
        return -1;
    if (c->cert && !c->key)
        return err_set(k->e,
                       "%s: client-key-data or client-key must be "
                       "specified to use the clientCert authentication method",
                       what);
    if (c->key && !c->cert)
        return err_set(k->e,
                       "%s: client-certificate-data or "
                       "client-certificate must be specified to use the "
                       "clientCert authentication method",
                       what);
    return 0;
}

static int load_context(struct kc *k, const char *context, struct kube_conn *c)
{
    const yaml_node_t *root = yaml_document_get_root_node(&k->doc);
    const char *name = context ? context : map_str(k, root, "current-context");
    const yaml_node_t *m;
    const char *cluster, *user, *ns;

    if (!name)
        return err_set(k->e, "current-context is not set and no context "
                             "was given");
    m = find_named(k, "contexts", name, "context");
    if (!m)
        return err_set(k->e, "context \"%s\" not found", name);
    cluster = map_str(k, m, "cluster");
    if (!cluster)
        return err_set(k->e, "context \"%s\": cluster is not set", name);
    if (load_cluster(k, cluster, c) < 0)
        return -1;
    user = map_str(k, m, "user");
    if (user && load_user(k, user, c) < 0)
        return -1;
    ns = map_str(k, m, "namespace");
    if (ns && !(c->namespace = xstrdup(k, ns)))
        return -1;
    return 0;
}

static int yaml_fail(struct kc *k, const yaml_parser_t *p)
{
    return err_set(k->e, "invalid YAML at line %zu, column %zu: %s",
                   p->problem_mark.line + 1, p->problem_mark.column + 1,
                   p->problem ? p->problem : "syntax error");
}

int kube_kubeconfig_parse(const char *text, size_t len, const char *path,
                          const char *context, struct kube_conn *out,
                          struct err *e)
{
    struct kc k = { .path = path, .e = e };
    yaml_parser_t parser;
    const char *slash = strrchr(path, '/');
    int rc = -1;

    memset(out, 0, sizeof(*out));
    k.dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path))
                  : strdup("");
    if (!k.dir || !yaml_parser_initialize(&parser)) {
        free(k.dir);
        return err_set(e, "kubeconfig %s: out of memory", path);
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &k.doc)) {
        yaml_fail(&k, &parser);
        yaml_parser_delete(&parser);
        goto out_nodoc;
    }
    yaml_parser_delete(&parser);
    if (load_context(&k, context, out) == 0) {
        out->origin = malloc(strlen(path) + 12);
        if (out->origin) {
            sprintf(out->origin, "kubeconfig %s", path);
            rc = 0;
        } else {
            err_set(e, "out of memory");
        }
    }
    yaml_document_delete(&k.doc);
out_nodoc:
    free(k.dir);
    if (rc < 0) {
        kube_conn_free(out);
        err_prefix(e, "kubeconfig %s: ", path);
    }
    return rc;
}

int kube_kubeconfig_load(const char *path, const char *context,
                         struct kube_conn *out, struct err *e)
{
    size_t len;
    char *text = kube_slurp_file(path, KC_MAX_FILE, &len, e);
    int rc;

    memset(out, 0, sizeof(*out));
    if (!text)
        return err_prefix(e, "kubeconfig ");
    rc = kube_kubeconfig_parse(text, len, path, context, out, e);
    free(text);
    return rc;
}

int kube_conn_in_cluster(const struct kube_in_cluster_paths *paths,
                         struct kube_conn *out, struct err *e)
{
    struct kube_in_cluster_paths p = { 0 };
    char *tok;
    size_t n;

    memset(out, 0, sizeof(*out));
    if (paths)
        p = *paths;
    p.host = p.host ? p.host : getenv("KUBERNETES_SERVICE_HOST");
    p.port = p.port ? p.port : getenv("KUBERNETES_SERVICE_PORT");
    p.token_file = p.token_file ? p.token_file : KUBE_SA_TOKEN_FILE;
    p.ca_file = p.ca_file ? p.ca_file : KUBE_SA_CA_FILE;
    if (!p.host || !*p.host || !p.port || !*p.port)
        return err_set(e, "in-cluster: KUBERNETES_SERVICE_HOST and "
                          "KUBERNETES_SERVICE_PORT must be defined (or pass "
                          "--kubeconfig or --master)");
    tok = kube_slurp_file(p.token_file, KC_MAX_FILE, &n, e);
    if (!tok)
        return err_prefix(e, "in-cluster: service account token: ");
    free(tok);
    out->ca = kube_slurp_file(p.ca_file, KC_MAX_FILE, &out->ca_len, e);
    out->server = malloc(strlen(p.host) + strlen(p.port) + 16);
    out->token_file = strdup(p.token_file);
    out->origin = strdup("in-cluster");
    if (!out->ca) {
        kube_conn_free(out);
        return err_prefix(e, "in-cluster: service account CA: ");
    }
    if (!out->server || !out->token_file || !out->origin) {
        kube_conn_free(out);
        return err_set(e, "in-cluster: out of memory");
    }
    sprintf(out->server,
            strchr(p.host, ':') ? "https://[%s]:%s" : "https://%s:%s", p.host,
            p.port);
    if (kube_server_url_check("in-cluster: KUBERNETES_SERVICE_HOST and "
                              "KUBERNETES_SERVICE_PORT",
                              out->server, e) < 0) {
        kube_conn_free(out);
        return -1;
    }
    return 0;
}

int kube_conn_resolve(const struct kube_conn_opts *o, struct kube_conn *out,
                      struct err *e)
{
    memset(out, 0, sizeof(*out));
    if (o->kubeconfig && *o->kubeconfig) {
        if (kube_kubeconfig_load(o->kubeconfig, o->context, out, e) < 0)
            return -1;
    } else if (o->master && *o->master) {
        out->origin = strdup("--master");
        if (!out->origin)
            return err_set(e, "out of memory");
    } else {
        return kube_conn_in_cluster(o->in_cluster, out, e);
    }
    if (o->master && *o->master) {
        if (kube_server_url_check("--master", o->master, e) < 0) {
            kube_conn_free(out);
            return -1;
        }
        free(out->server);
        out->server = strdup(o->master);
        if (!out->server) {
            kube_conn_free(out);
            return err_set(e, "out of memory");
        }
        while (*out->server && out->server[strlen(out->server) - 1] == '/')
            out->server[strlen(out->server) - 1] = '\0';
    }
    return 0;
}
