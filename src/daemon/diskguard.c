/* SPDX-License-Identifier: Apache-2.0 */
/* Disk guard. See diskguard.h. */
#include "daemon/diskguard.h"

#include <sys/statvfs.h>

#include "util/clock.h"
#include "util/hot.h"

void diskguard_init(struct diskguard *g, uint64_t min_free_mb, int64_t check_every_ns)
{
        g->min_free_bytes = min_free_mb * 1024 * 1024;
        g->check_every_ns = check_every_ns;
        g->last_check_ns = 0;
        g->paused = false;
        g->paused_since_real_ns = 0;
        g->free_bytes = 0;
}

VIGIL_HOT int diskguard_check(struct diskguard *g, const char *dir, int64_t mono_ns,
                              int64_t real_ns, bool force)
{
        /* While paused, look every second: writing resumes soon after space returns. */
        int64_t every =
            g->paused && g->check_every_ns > NSEC_PER_SEC ? NSEC_PER_SEC : g->check_every_ns;
        if (!force && g->last_check_ns != 0 && mono_ns - g->last_check_ns < every)
                return 0;
        g->last_check_ns = mono_ns;
        struct statvfs sv;
        if (statvfs(dir, &sv) < 0)
                return 0; /* can't tell: let writes fail on their own */
        g->free_bytes = (uint64_t)sv.f_bavail * sv.f_frsize;
        bool low = g->free_bytes < g->min_free_bytes;
        if (low && !g->paused) {
                g->paused = true;
                g->paused_since_real_ns = real_ns;
                return 1;
        }
        if (!low && g->paused) {
                g->paused = false;
                return -1;
        }
        return 0;
}
