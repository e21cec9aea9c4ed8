/* SPDX-License-Identifier: Apache-2.0 */
/* The alerts not yet delivered, kept on disk while the Alertmanager cannot be reached:
 * every firing alert and every resolution it has not taken, in one small file of the
 * log directory (alertmanager/alerts), written whole to a temporary file, synced and
 * renamed over the old one, so a crash or a full disk leaves the old file or the new,
 * never half of one. At most AM_MAX_ALERTS alerts (about 1 KB each).
 *
 *   vigil-alerts<TAB>1
 *   A<TAB>STARTS_MS<TAB>ENDS_MS<TAB>DELIVERED<TAB>NLABELS<TAB>NAME<TAB>VALUE...<TAB>SUMMARY<TAB>DESCRIPTION
 *   end<TAB>COUNT
 *
 * Fields are escaped: backslash, tab and newline as \\, \t and \n. A file that does
 * not read back whole (damaged, cut short, another format) is moved aside to
 * alerts.damaged and the store starts empty: the next evaluation of the findings
 * fills it again. Used by the alert sender's thread only. */
#ifndef VIGIL_PUSH_AM_STORE_H
#define VIGIL_PUSH_AM_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "push/am_alert.h"

#define AM_STORE_DIR      "alertmanager"
#define AM_STORE_FILE     "alerts"
#define AM_STORE_MAX_FILE (1u << 20)

struct am_entry {
        struct am_alert a;
        bool delivered; /* the Alertmanager took this state (firing, or resolved) */
        bool carried;   /* read firing from the file, not raised again by this run yet */
};

struct am_store {
        char path[1200], tmp[1200], damaged[1200];
        size_t n;
        struct am_entry e[AM_MAX_ALERTS];
        /* write(2); a test puts a full disk here. */
        ssize_t (*write_fn)(int fd, const void *buf, size_t len);
};

/* Set s up for dir/alerts (dir must exist) and read what the file holds (any table s
 * had is dropped). 0 (none or
 * read); -EBADMSG when it was damaged and moved aside (s empty); another -errno when
 * it could not be read (s empty, the file left as it is). */
int am_store_open(struct am_store *s, const char *dir);

/* Write the table to the file (temporary file, fsync, rename, directory fsync). 0 or
 * -errno (ENOSPC, EIO, ...): the file then holds the previous table. */
int am_store_save(struct am_store *s);

/* The entry of id, or NULL. */
struct am_entry *am_store_find(struct am_store *s, uint64_t id);

/* A new entry for a (a copy): the first free one, else the oldest delivered resolved
 * one given up. NULL when all AM_MAX_ALERTS are firing or undelivered. */
struct am_entry *am_store_add(struct am_store *s, const struct am_alert *a);

/* Remove entry i (the order of the others is kept). */
void am_store_remove(struct am_store *s, size_t i);

/* Entries not delivered. */
size_t am_store_pending(const struct am_store *s);

/* The table as the file's text into out (exposed for tests). */
void am_store_format(const struct am_store *s, struct strbuf *out);

/* Read text[0..len) into s's table. 0 or -EBADMSG (s's table then empty). */
int am_store_parse(struct am_store *s, const char *text, size_t len);

#endif
