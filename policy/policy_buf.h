/*
 * policy_buf.h: what the policy writers (JSON, INI, check output,
 * KubeSchedulerConfiguration YAML) add to the text buffer (kube/base/strbuf.h):
 * a hard cap and the quoting rules each format needs.
 */
#ifndef POLICY_POLICY_BUF_H
#define POLICY_POLICY_BUF_H

#include "kube/base/strbuf.h"

/* The most any one policy document or report may take. */
#define PBUF_MAX (16u * 1024u * 1024u)

/* s as a JSON string literal (with quotes). */
void quote_json(struct strbuf *b, const char *s);

/* s as a YAML scalar: plain when that is unambiguous, else double-quoted. */
void quote_yaml(struct strbuf *b, const char *s);

/* Go's %q for plain text (strconv.Quote on valid UTF-8 printable text). */
void quote_go(struct strbuf *b, const char *s);

#endif
