/* SPDX-License-Identifier: Apache-2.0 */
/* The disk guard: file writes pause while the log directory's file system has less
 * than the configured free space, and resume when it has more again (the reference
 * logger's MIN_DISK_MB rule, checked every 30 s, every second while paused, and at once
 * after ENOSPC). */
#ifndef VIGIL_CORE_DISKGUARD_H
#define VIGIL_CORE_DISKGUARD_H

#include <stdbool.h>
#include <stdint.h>

struct diskguard {
        uint64_t min_free_bytes;
        int64_t check_every_ns;
        int64_t last_check_ns; /* monotonic; 0 = never */
        bool paused;
        int64_t paused_since_real_ns;
        uint64_t free_bytes; /* at the last check */
};

void diskguard_init(struct diskguard *g, uint64_t min_free_mb, int64_t check_every_ns);
/* Check dir now if due (or if force). Returns +1 when writing just paused, -1 when it
 * just resumed, 0 when nothing changed. */
int diskguard_check(struct diskguard *g, const char *dir, int64_t mono_ns, int64_t real_ns,
                    bool force);

#endif
