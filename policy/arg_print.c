/*
 * arg_print.c: one argument value printed through its schema, as JSON
 * (the Policy writer, check --output json) or as check's "k=v" text.
 */
#include "policy/arg_print.h"

void policy_strlist_out(struct strbuf *b, const struct policy_strlist *l,
                        bool json)
{
    size_t i;

    strbuf_add(b, "[");
    for (i = 0; i < l->n; i++) {
        strbuf_add(b, i ? ", " : "");
        if (json)
            quote_json(b, l->v[i]);
        else
            strbuf_add(b, l->v[i]);
    }
    strbuf_add(b, "]");
}

static void field_out(struct strbuf *b, const struct kpe_arg_field *f,
                      const void *value, bool json);

/* A list of objects: JSON objects, or "a:b" elements in text. */
static void objects_out(struct strbuf *b, const struct kpe_arg_field *f,
                        const void *value, bool json)
{
    const unsigned char *items = *(
        const unsigned char *const *)((const unsigned char *)value + f->offset);
    size_t n =
        *(const size_t *)((const unsigned char *)value + f->count_offset);
    size_t i, j;

    strbuf_add(b, "[");
    for (i = 0; i < n; i++) {
        const void *item = items + i * f->elem->size;

        strbuf_add(b, i ? ", " : "");
        if (json) {
            policy_arg_json(b, f->elem, item);
            continue;
        }
        for (j = 0; j < f->elem->n_fields; j++) {
            strbuf_add(b, j ? ":" : "");
            field_out(b, &f->elem->fields[j], item, false);
        }
    }
    strbuf_add(b, "]");
}

static void field_out(struct strbuf *b, const struct kpe_arg_field *f,
                      const void *value, bool json)
{
    const unsigned char *at = (const unsigned char *)value + f->offset;
    const char *str;

    switch (f->type) {
    case KPE_ARG_STRING:
        str = *(const char *const *)at ? *(const char *const *)at : "";
        if (json)
            quote_json(b, str);
        else
            strbuf_add(b, str);
        break;
    case KPE_ARG_BOOL:
        strbuf_add(b, *(const bool *)at ? "true" : "false");
        break;
    case KPE_ARG_INT32:
        strbuf_printf(b, "%d", (int)*(const int32_t *)at);
        break;
    case KPE_ARG_INT64:
        strbuf_printf(b, "%lld", (long long)*(const int64_t *)at);
        break;
    case KPE_ARG_STRINGS:
        policy_strlist_out(b, (const struct policy_strlist *)at, json);
        break;
    case KPE_ARG_OBJECTS:
        objects_out(b, f, value, json);
        break;
    case KPE_ARG_ENUM:
        str = f->enum_names[*(const int *)at];
        if (json)
            quote_json(b, str);
        else
            strbuf_add(b, str);
        break;
    case KPE_ARG_OBJECT:
        if (json)
            policy_arg_json(b, f->elem, at);
        else
            policy_arg_text(b, f->elem, at);
        break;
    }
}

/* A string field with a default is left out while unset. */
static bool left_out(const struct kpe_arg_field *f, const void *value)
{
    return f->type == KPE_ARG_STRING && f->def &&
           !*(const char *const *)((const unsigned char *)value + f->offset);
}

void policy_arg_json(struct strbuf *b, const struct kpe_arg_schema *s,
                     const void *value)
{
    const char *sep = "";
    size_t i;

    strbuf_add(b, "{");
    for (i = 0; value && i < s->n_fields; i++) {
        if (left_out(&s->fields[i], value))
            continue;
        strbuf_printf(b, "%s\"%s\": ", sep, s->fields[i].name);
        field_out(b, &s->fields[i], value, true);
        sep = ", ";
    }
    strbuf_add(b, "}");
}

void policy_arg_text(struct strbuf *b, const struct kpe_arg_schema *s,
                     const void *value)
{
    const char *sep = "";
    size_t i;

    for (i = 0; i < s->n_fields; i++) {
        strbuf_add(b, sep);
        sep = " ";
        if (s->fields[i].type == KPE_ARG_OBJECT && value) {
            field_out(b, &s->fields[i], value, false); /* flat */
            continue;
        }
        strbuf_printf(b, "%s=", s->fields[i].name);
        if (!value || left_out(&s->fields[i], value))
            strbuf_add(b, s->fields[i].def ? s->fields[i].def : "");
        else
            field_out(b, &s->fields[i], value, false);
    }
}
