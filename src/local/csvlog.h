/* SPDX-License-Identifier: Apache-2.0 */
/* A daily CSV file in the log directory: PREFIX-YYYY-MM-DD.csv, rotated at local
 * midnight, pruned after the retention period, one write(2) per row, a header once
 * per file, a torn last line repaired when the file is opened. */
#ifndef VIGIL_LOCAL_CSVLOG_H
#define VIGIL_LOCAL_CSVLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/clock.h"
#include "util/fmt.h"
#include "util/fssync.h"

struct csvlog {
        char dir[1024];
        char prefix[32]; /* "host", "gpu0" */
        unsigned retention_days;
        int fd;        /* -1 when closed */
        char date[16]; /* the open file's day */
        char path[1200];
        uint64_t size; /* bytes in the open file */
        uint64_t rows; /* rows written since start */
        uint64_t write_errors;
        int last_error;          /* -errno of the last failed write, 0 after a success */
        int repaired;            /* bytes cut from a torn last line at the last open */
        int64_t last_real_ns;    /* wall time of the last row offered; 0 = none yet */
        int64_t looked_ns;       /* wall time of the last look at the file's size (fstat) */
        bool fixed;              /* one named file (--csv): no day rotation, no pruning */
        bool moved_aside;        /* the file's old content had another header: now in moved_to */
        struct fssync_file sync; /* rows written and not yet synced (util/fssync.h) */
        dev_t dev;               /* the open file's device (st_dev): whose syncfs covers it */
        struct fmt_sec_cache date_cache; /* the day of the last row's second */
        char moved_to[1220];             /* where the last move aside put the old file */
};

/* Set up (no file is opened until the first row). */
void csvlog_init(struct csvlog *l, const char *dir, const char *prefix, unsigned retention_days);

/* Set up for one named file (the reference monitor's --csv FILE): rows are appended to
 * path whatever the day, nothing is pruned, the header is written when the file is
 * empty. A file whose first line is not the header (another program's, another core
 * count) is renamed first, so no row lands under a wrong header: to path + ".old", or
 * when that is taken (an earlier change) to the first free path.old.1, path.old.2 ..,
 * so no earlier file is overwritten; the name is in moved_to. The
 * parent directories are created at the first row. path is copied. */
void csvlog_init_file(struct csvlog *l, const char *path);

/* Append one row (row must end with '\n') to the file of real_ns's local day,
 * opening, rotating and writing header (ending with '\n') as needed. At a change of
 * day older days are pruned (csvlog_prune), counting back from the earlier of the new
 * row's time and the last row's when the wall clock jumped. A short write
 * is rolled back (ftruncate) so no torn row stays. A file truncated by another program
 * (copytruncate) is followed: rows go to its new end (O_APPEND), and the header is put
 * back at its start; the file's size is looked at once a second (CSVLOG_LOOK_NS), not
 * at every row, so the rows of up to a second after the cut come before the look that
 * puts the header in front of them. 0 or -errno. */
#define CSVLOG_LOOK_NS NSEC_PER_SEC
int csvlog_write(struct csvlog *l, int64_t real_ns, const char *header, const char *row,
                 size_t len);

/* Close the file; the next row reopens it by name (SIGHUP after a rename rotation). */
void csvlog_reopen(struct csvlog *l);
/* fdatasync the open file, when rows were written since the last sync (an idle file
 * costs nothing). 0 or -errno. */
int csvlog_sync(struct csvlog *l);
/* csvlog_sync within a sync round (util/fssync.h): a file on the round's file system
 * is synced at fssync_end (with the others: one syncfs, or an fdatasync each), any
 * other now. fs may be NULL. 0 or -errno. */
int csvlog_sync_in(struct csvlog *l, struct fssync *fs);
void csvlog_close(struct csvlog *l);
/* Cut a torn last line from the CSV file at path (a crash or power cut mid-row), so
 * the file ends with a whole row, and sync the cut; a file with no newline at all is
 * emptied. For files vigil will not open again (an earlier day's); the file it logs
 * to is repaired when opened. Returns the bytes cut (0 when the file was whole), or
 * -errno. */
int csvlog_repair(const char *path);

/* Delete PREFIX-YYYY-MM-DD*.csv[.gz] files older than retention_days before today,
 * always keeping the newest retention_days days present (so a wall clock that jumps
 * ahead never deletes recent data). Returns the number deleted. */
int csvlog_prune(const char *dir, const char *prefix, unsigned retention_days, int64_t real_ns);

#endif
