/*
 * doc_format.h: JSON, YAML or INI, told from a file's content (never its
 * name): the first line that is not blank or a comment decides.
 */
#ifndef KUBE_BASE_DOC_FORMAT_H
#define KUBE_BASE_DOC_FORMAT_H

#include <stddef.h>

#include "kube/base/err.h"

enum doc_format {
    DOC_FORMAT_UNKNOWN = 0,
    DOC_FORMAT_JSON, /* the first byte is '{', or '[' opening a JSON array */
    DOC_FORMAT_YAML, /* ---, %YAML, "- item" or "key: value" */
    DOC_FORMAT_INI,  /* ; comment, [section] or key = value */
};

/* Bytes of a file's head enough for doc_format_sniff. */
#define DOC_FORMAT_HEAD 65536

/*
 * The format of the text buf[0..len) (its head is enough). For
 * DOC_FORMAT_UNKNOWN, e says what the text looked like instead, with the
 * line ("line 1: looks like XML or HTML, not JSON, YAML or INI").
 */
enum doc_format doc_format_sniff(const char *buf, size_t len, struct err *e);

/*
 * Step *buf and *len past a UTF-8 byte order mark (EF BB BF) at the start.
 * kube-scheduler v1.22 reads a file that starts with one: its universal
 * decoder does not recognise such text as JSON (apimachinery's
 * IsJSONBuffer looks for '{' after white space) and hands it to the YAML
 * path, whose reader drops the mark; so JSON with a mark is read as the
 * same JSON without it.
 */
void doc_skip_bom(const char **buf, size_t *len);

/* "JSON", "YAML", "INI" or "unknown". */
const char *doc_format_name(enum doc_format f);

#endif
