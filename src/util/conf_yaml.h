/* SPDX-License-Identifier: Apache-2.0 */
/* The one reader of vigil's YAML-like config files (the web config, the remote-write
 * config): a strict, bounded reader of this subset of YAML 1.2, line by line:
 *
 *   ---                          # optional, as the first line of content only
 *   key: value                   # a plain scalar, up to a " #" comment
 *   other: 'single quoted'       # '' is a quote; "double quoted": \" and \\ only
 *   block:                       # a key with no value opens a nested mapping: the
 *     inner: value               # lines indented under it, all at the same indent,
 *     deeper:                    # which may open mappings of their own (at most
 *       leaf: value              # CONF_YAML_MAX_DEPTH levels in all)
 *
 * Comments and blank lines anywhere; spaces only for indentation. Anything else (a
 * tab in the indentation, a list or flow collection, an anchor, a tag, a multi-line
 * scalar, a second document, a plain value with ": " in it, a control character, a NUL
 * byte, a line over CONF_YAML_MAX_LINE bytes) is an error naming the line. What the
 * keys mean, which may repeat and which must be present is the caller's: the reader
 * hands each entry to a callback, which may fail with an error naming its line. */
#ifndef VIGIL_UTIL_CONF_YAML_H
#define VIGIL_UTIL_CONF_YAML_H

#include <stddef.h>

#define CONF_YAML_MAX_LINE  1024 /* bytes of one line, its end not counted */
#define CONF_YAML_MAX_KEY   63   /* bytes of one key */
#define CONF_YAML_MAX_DEPTH 4    /* mappings nested, the top level counted */

enum conf_yaml_event {
        CONF_YAML_SCALAR, /* "key: value": value is not empty */
        CONF_YAML_OPEN,   /* "key:" (or key: '' or ""): a mapping of the lines indented under
                           * it begins; it may have none */
        CONF_YAML_CLOSE,  /* the mapping OPEN began has ended (at the first line indented
                           * no deeper than its key, or at the end of the text); line is the
                           * OPEN's */
        CONF_YAML_END,    /* the text has ended, every mapping closed: the place for checks
                           * across entries (line: the last line; key "") */
};

/* One entry. The strings live only for the callback. */
struct conf_yaml_item {
        enum conf_yaml_event event;
        unsigned line;      /* 1-based line of the entry (of its OPEN for a CLOSE) */
        unsigned depth;     /* 0 at the top level, 1 under one key, ... */
        const char *key;    /* the entry's key */
        const char *value;  /* the scalar, unquoted ("" for OPEN and CLOSE) */
        const char *parent; /* the key of the mapping it is in; NULL at the top level */
};

struct conf_yaml;

/* Called for each entry in the order of the text, with arg. 0 to go on, or a
 * conf_yaml_fail() result to stop reading. */
typedef int (*conf_yaml_fn)(struct conf_yaml *y, const struct conf_yaml_item *it, void *arg);

/* Read text[0..len) (need not be NUL-terminated) and hand each entry to fn. 0, or
 * -EINVAL with "line N: what" written to err[0..cap) (cut to fit; "" on success). */
int conf_yaml_read(const char *text, size_t len, conf_yaml_fn fn, void *arg, char *err, size_t cap);

/* From a callback: write "line N: what" into the reader's error buffer and return
 * -EINVAL. */
__attribute__((format(printf, 3, 4))) int conf_yaml_fail(struct conf_yaml *y, unsigned line,
                                                         const char *fmt, ...);

#endif
