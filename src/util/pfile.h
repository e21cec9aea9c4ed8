/* SPDX-License-Identifier: Apache-2.0 */
/* Kept-open files re-read with pread(2): procfs and sysfs return fresh contents at
 * offset 0 on every read, so a source opens its files once and pays only the read. */
#ifndef VIGIL_UTIL_PFILE_H
#define VIGIL_UTIL_PFILE_H

#include <stdbool.h>
#include <stddef.h>

struct pfile {
        int fd;          /* -1 when not open */
        char *buf;       /* owned; cap bytes, NUL-terminated after a read */
        size_t cap;      /* the bound: at most cap-1 bytes are read */
        size_t len;      /* bytes from the last read */
        bool truncated;  /* the last read filled the buffer: the file is longer */
        char path[4096]; /* the full path (root prefix included), for reopening */
};

/* Join root and an absolute path into out ("/" or "" root means none).
 * 0 or -ENAMETOOLONG. */
int path_join(char *out, size_t cap, const char *root, const char *path);

/* Open root+path read-only (O_CLOEXEC) with a buffer of cap bytes (cap >= 2).
 * 0 or -errno; on failure f is left closed (fd -1) and needs no pfile_close. */
int pfile_open(struct pfile *f, const char *root, const char *path, size_t cap);
/* Re-read the whole file from offset 0 into f->buf. Returns the length or -errno.
 * A file larger than the buffer is cut at cap-1 bytes and f->truncated is set. */
int pfile_read(struct pfile *f);
/* Close and free; accepts a closed or zeroed pfile. */
void pfile_close(struct pfile *f);
bool pfile_is_open(const struct pfile *f);

/* One-shot bounded read of root+path into buf (NUL-terminated).
 * Returns the length or -errno. Files longer than cap-1 are cut. */
int read_file_at(const char *root, const char *path, char *buf, size_t cap);
/* read_file_at, then strip trailing whitespace. */
int read_line_at(const char *root, const char *path, char *buf, size_t cap);

/* Replace dir/name with len bytes of buf, atomically and durably: written to
 * dir/.name.tmp, synced, renamed over dir/name, the directory synced; after a power
 * loss the file is the old one or the new one, whole. 0 or -errno. */
int write_file_atomic(const char *dir, const char *name, const void *buf, size_t len);

#endif
