/*
 * arg_print.h: one Policy argument value printed through its schema
 * (arg_print.c).
 */
#ifndef POLICY_ARG_PRINT_H
#define POLICY_ARG_PRINT_H

#include "framework/args.h"
#include "policy/policy_buf.h"

/*
 * {"field": value, ...} in schema order; a string field with a default is
 * left out while unset, other unset strings are Go's zero value "". value
 * NULL: {}.
 */
void policy_arg_json(struct strbuf *b, const struct kpe_arg_schema *s,
                     const void *value);

/* "field=value field=value" (lists as [a, b], objects as [x:y]); unset
 * fields show their default. value NULL: every default. */
void policy_arg_text(struct strbuf *b, const struct kpe_arg_schema *s,
                     const void *value);

/* [a, b] (text) or ["a", "b"] (JSON). */
void policy_strlist_out(struct strbuf *b, const struct policy_strlist *l,
                        bool json);

#endif
