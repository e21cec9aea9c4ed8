/* SPDX-License-Identifier: Apache-2.0 */
/* /dev/shm usage (statvfs), where Chromium renders: when it fills, pages go blank.
 *
 * Test seam: with a --root prefix (not "" or "/"), a file ROOT/dev/shm.statvfs that
 * exists at init replaces the statvfs(2) call. It holds one line,
 * "f_frsize f_blocks f_bfree f_bavail" (decimal), and is re-read every sample, so
 * fixture trees get exact, changeable values. Without it, statvfs(ROOT/dev/shm) is
 * used (under a fixture root that is the fixture's own file system). The file is never
 * looked at without a root prefix. */
#ifndef VIGIL_COLLECT_SHM_H
#define VIGIL_COLLECT_SHM_H

#include <stddef.h>
#include <stdint.h>

#include "core/frame.h"

/* The statvfs fields vigil uses. */
struct shm_statvfs {
        uint64_t frsize; /* fragment size, bytes */
        uint64_t blocks; /* size of the file system in frsize units */
        uint64_t bfree;  /* free blocks */
        uint64_t bavail; /* free blocks for unprivileged users */
};

/* Parse the test-seam line "f_frsize f_blocks f_bfree f_bavail" from s[0..n): four
 * decimal numbers, then only whitespace. 0 or -EINVAL/-ERANGE; *ret untouched on
 * failure. */
int shm_parse_override(const char *s, size_t n, struct shm_statvfs *ret);

/* Fill host.shm_total_bytes (blocks * frsize), shm_used_bytes ((blocks - bfree) *
 * frsize, as psutil's disk_usage), shm_avail_bytes (bavail * frsize). v NULL, or bfree
 * or bavail above blocks, gives NAN where the value would be wrong. */
void shm_apply(const struct shm_statvfs *v, struct host_frame *h);

/* The source (VCLOCK_HOST): the fields above. */
struct vigil_source;
extern const struct vigil_source vigil_source_shm;

#endif
