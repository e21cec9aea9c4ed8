/* SPDX-License-Identifier: Apache-2.0 */
/* Small kernel files (sysfs attributes, single-record procfs files) kept open and
 * re-read with one pread(2) at offset 0.
 *
 * Why one pread: these files are produced by a single seq_file show() call, so one
 * read at offset 0 returns the whole content up to the buffer size; a short read means
 * the end of the file. pfile_read() confirms EOF with a second pread, which doubles the
 * syscalls on the sample path of sources that read dozens of attributes. */
#ifndef VIGIL_UTIL_ATTR_H
#define VIGIL_UTIL_ATTR_H

#include <stddef.h>

#include "util/pfile.h"

/* Open root+path read-only (O_CLOEXEC, O_NOCTTY). Returns the fd (owned by the
 * caller, close(2) it) or -errno. */
int attr_open(const char *root, const char *path);

/* One pread of at most cap-1 bytes at offset 0 into buf (cap >= 2), NUL-terminated.
 * Returns the length (cap-1 means the file may be longer) or -errno; on error buf is
 * the empty string. */
int attr_read(int fd, char *buf, size_t cap);

/* attr_read into an open pfile's buffer; sets f->len and f->truncated.
 * Returns the length or -errno (-EBADF when f is not open). */
int pfile_read_once(struct pfile *f);

/* Length of s[0..n) without trailing whitespace (spaces, tabs, CR, LF). */
size_t attr_trim_len(const char *s, size_t n);

#endif
