/*
 * yaml_reader.h: YAML (a file or a buffer, one or more documents joined
 * with ---) read as Kubernetes reads it, into the same arena cJSON trees
 * json_parse.h builds, so every reader of JSON objects reads YAML too. A
 * pull reader like json_reader: walk the outer containers and build one
 * value at a time, so a big list streams item by item from the file.
 *
 * What a value means is what sigs.k8s.io/yaml (yaml.v2) gives: YAML 1.1
 * scalars (yaml_scalar.h), a repeated key's last value wins, `<<` merges,
 * aliases are expanded (within one built value, up to a budget).
 *
 * Errors name the place: "invalid YAML at line 7, column 3: could not find
 * expected ':' (while scanning a simple key at line 6, column 1) near
 * "image nginx"".
 */
#ifndef KUBE_BASE_YAML_READER_H
#define KUBE_BASE_YAML_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <yaml.h>

struct arena;
struct cJSON;
struct err;

#define YAML_READER_MAX_DEPTH 256
/* Nodes alias expansion may add to one built value. */
#define YAML_READER_ALIAS_BUDGET 100000

struct yaml_reader {
    yaml_parser_t parser;
    yaml_event_t ev;
    bool have;       /* ev holds an event not consumed yet */
    bool ready;      /* parser initialised */
    FILE *f;         /* the input file, or NULL */
    const char *buf; /* ... or the input buffer */
    size_t len;
    struct err *e;
    char dup[160]; /* the first key given twice, see yaml_notes */
    int depth;     /* containers entered with yreader_enter */
    unsigned char is_map[YAML_READER_MAX_DEPTH + 1];
};

/* Read from a buffer / an open file (not closed here). 0 or -1 with e. */
int yreader_init_buffer(struct yaml_reader *r, const char *buf, size_t len,
                        struct err *e);
int yreader_init_file(struct yaml_reader *r, FILE *f, struct err *e);

/* Start again from the first byte (the file is rewound). 0 or -1. */
int yreader_restart(struct yaml_reader *r);

/* Release the parser. Safe twice. */
void yreader_free(struct yaml_reader *r);

/* Begin the next document: 1 (at its root value), 0 at the end, -1. */
int yreader_document(struct yaml_reader *r);

/*
 * What comes next: '{' a mapping, '[' a sequence, 's' a scalar or alias,
 * or -1 with e set (a syntax error).
 */
int yreader_peek(struct yaml_reader *r);

/* 1-based line and column where the next value starts. */
void yreader_where(struct yaml_reader *r, size_t *line, size_t *col);

/* Build the value at the reader into a tree from a. 0 or -1 with e. */
int yreader_value(struct yaml_reader *r, struct arena *a, struct cJSON **out);

/* Pass over the value at the reader without building it. 0 or -1. */
int yreader_skip(struct yaml_reader *r);

/* Open the mapping or sequence at the reader (yreader_peek said so). */
int yreader_enter(struct yaml_reader *r);

/*
 * The next element of the innermost open container: 1 when one follows
 * (a mapping's key in *key, from a; NULL in a sequence), 0 when the
 * container closed, -1 with e set.
 */
int yreader_next(struct yaml_reader *r, struct arena *a, char **key);

/* What yaml_parse_one noticed that a reader of the file should hear. */
struct yaml_notes {
    char dup[160];  /* the first key given twice: "line L, column C: key
                     * \"k\" already set in map" ("" for none) */
    bool more_docs; /* documents after the first, which are not read */
};

/*
 * The whole text of a buffer as one tree: the first document (an empty
 * stream is an error), as sigs.k8s.io/yaml reads a Policy. notes may be
 * NULL. 0 or -1 with e.
 */
int yaml_parse_one(struct arena *a, const char *buf, size_t len,
                   struct cJSON **out, struct yaml_notes *notes, struct err *e);

#endif
