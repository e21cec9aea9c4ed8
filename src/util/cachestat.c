/* SPDX-License-Identifier: Apache-2.0 */
/* cachestat(2) by its number. See cachestat.h. */
#include "util/cachestat.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_cachestat
#define SYS_cachestat 451
#endif

/* The kernel's struct cachestat_range: the range asked about. */
struct range {
        uint64_t off;
        uint64_t len;
};

int vigil_cachestat(int fd, uint64_t off, uint64_t len, struct vigil_cachestat *out)
{
        struct range r = {.off = off, .len = len};
        if (syscall(SYS_cachestat, (unsigned)fd, &r, out, 0u) < 0)
                return -errno;
        return 0;
}
