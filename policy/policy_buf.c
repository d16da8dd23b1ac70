/*
 * policy_buf.c: the policy writers' quoting (policy_buf.h).
 */
#include "policy/policy_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void quote_json(struct strbuf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");

    strbuf_add(b, "\"");
    for (; *p; p++) {
        switch (*p) {
        case '"':
            strbuf_add(b, "\\\"");
            break;
        case '\\':
            strbuf_add(b, "\\\\");
            break;
        case '\n':
            strbuf_add(b, "\\n");
            break;
        case '\r':
            strbuf_add(b, "\\r");
            break;
        case '\t':
            strbuf_add(b, "\\t");
            break;
        default:
            if (*p < 0x20)
                strbuf_printf(b, "\\u%04x", *p);
            else
                strbuf_addn(b, (const char *)p, 1);
        }
    }
    strbuf_add(b, "\"");
}

void quote_go(struct strbuf *b, const char *s)
{
    /* For printable text Go's %q and a JSON literal agree. */
    quote_json(b, s);
}

/* Words YAML 1.1 would read as something other than a string. */
static bool yaml_reserved(const char *s)
{
    static const char *const words[] = {
        "y",  "Y",    "yes",  "Yes",  "YES",   "n",     "N",     "no", "No",
        "NO", "true", "True", "TRUE", "false", "False", "FALSE", "on", "On",
        "ON", "off",  "Off",  "OFF",  "null",  "Null",  "NULL",  "~",
    };
    size_t i;

    for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (!strcmp(s, words[i]))
            return true;
    }
    return false;
}

static bool yaml_plain_ok(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    bool numeric = true;

    if (!*s || yaml_reserved(s))
        return false;
    if (strchr("-?:,[]{}#&*!|>'\"%@` ", s[0]))
        return false;
    for (; *p; p++) {
        if (*p < 0x20 || *p >= 0x7f)
            return false;
        if (strchr("#,[]{}\"'", *p))
            return false;
        if (*p == ':' && (p[1] == ' ' || p[1] == '\0'))
            return false;
        if (!strchr("0123456789.+-eE_xXoO", *p))
            numeric = false;
    }
    if (s[strlen(s) - 1] == ' ')
        return false;
    return !numeric;
}

void quote_yaml(struct strbuf *b, const char *s)
{
    if (!s)
        s = "";
    if (yaml_plain_ok(s))
        strbuf_add(b, s);
    else
        quote_json(b, s); /* a JSON string is a YAML double-quoted one */
}
