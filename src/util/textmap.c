/* SPDX-License-Identifier: Apache-2.0 */
/* Read-only file mappings' pages dropped after start-up. See textmap.h. */
#include "util/textmap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "util/parse.h"

/* The mapping being read from smaps: its range, and what it is. */
struct ro_map {
        uint64_t start, end;
        bool code; /* r-xp of a file */
        bool data; /* r--p of a file */
};

/* Advise m when it is code; drop its pages only when none of them is the process's own
 * copy ("Anonymous: 0 kB" in smaps): a library relocated in its text would have such
 * pages, and dropping them would undo its relocations. 1 when m was handled. */
static int drop(const struct ro_map *m, uint64_t anon_kb)
{
        void *p = (void *)(uintptr_t)m->start;
        size_t len = (size_t)(m->end - m->start);
        if (m->code && madvise(p, len, MADV_RANDOM) < 0)
                return 0;
        bool dropped = anon_kb == 0 && madvise(p, len, MADV_DONTNEED) == 0;
        return m->code || dropped;
}

int textmap_drop(void)
{
        FILE *f = fopen("/proc/self/smaps", "re");
        if (!f)
                return -errno;
        char line[512];
        struct ro_map m = {0};
        int n = 0;
        while (fgets(line, sizeof(line), f)) {
                /* A mapping's line: "start-end perms offset dev inode [path]" (proc(5)),
                 * then its fields, "Anonymous:" among them. */
                struct cursor c = cur_str(line);
                uint64_t start, end, kb;
                if (cur_hex(&c, &start) == 0 && cur_lit(&c, "-") && cur_hex(&c, &end) == 0) {
                        cur_skip_blank(&c);
                        bool file = strchr(line, '/') && end > start;
                        bool code = cur_lit(&c, "r-xp");
                        m = (struct ro_map){start, end, file && code,
                                            file && !code && cur_lit(&c, "r--p")};
                        continue;
                }
                c = cur_str(line); /* a field's line ("Anonymous:" starts with a hex digit) */
                if (!(m.code || m.data) || !cur_lit(&c, "Anonymous:"))
                        continue;
                cur_skip_blank(&c);
                if (cur_u64(&c, &kb) == 0)
                        n += drop(&m, kb);
                m.code = m.data = false;
        }
        fclose(f);
        return n;
}
