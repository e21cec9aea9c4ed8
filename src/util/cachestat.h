/* SPDX-License-Identifier: Apache-2.0 */
/* cachestat(2), Linux 6.5: how many of a file's pages are in the page cache, dirty, and
 * under write-back, in one call that reads nothing from the disk. The structures are
 * the kernel's (include/uapi/linux/mman.h, struct cachestat_range and struct
 * cachestat); the call is number 451 on every architecture vigil builds for
 * (arch/x86/entry/syscalls/syscall_64.tbl, arch/arm/tools/syscall.tbl, and the generic
 * table arm64 uses). Debian 12's kernel headers (6.1) have neither, so both are here.
 * Since Linux 6.14 the caller must hold the file open for writing or own it
 * (mm/filemap.c, can_do_cachestat): the logs are. */
#ifndef VIGIL_UTIL_CACHESTAT_H
#define VIGIL_UTIL_CACHESTAT_H

#include <stdint.h>

struct vigil_cachestat {
        uint64_t nr_cache;     /* pages of the range in the page cache */
        uint64_t nr_dirty;     /* of those, written to and not yet written out */
        uint64_t nr_writeback; /* being written out now */
        uint64_t nr_evicted;
        uint64_t nr_recently_evicted;
};

/* The page cache state of len bytes of fd from off (len 0: to the end of the file).
 * 0, or -errno: -ENOSYS before Linux 6.5, -EPERM where the file may not be asked
 * (above), -EOPNOTSUPP for hugetlbfs. */
int vigil_cachestat(int fd, uint64_t off, uint64_t len, struct vigil_cachestat *out);

#endif
