/* SPDX-License-Identifier: Apache-2.0 */
/* Code mappings advised MADV_RANDOM. See textmap.h. */
#include "util/textmap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "util/parse.h"

/* The code mapping being read from smaps: its range, and whether it is one. */
struct code_map {
        uint64_t start, end;
        bool code;
};

/* Advise m; drop its pages only when none of them is the process's own copy
 * ("Anonymous: 0 kB" in smaps): a library relocated in its text would have such
 * pages, and dropping them would undo its relocations. */
static int advise(const struct code_map *m, uint64_t anon_kb)
{
        void *p = (void *)(uintptr_t)m->start;
        size_t len = (size_t)(m->end - m->start);
        if (madvise(p, len, MADV_RANDOM) < 0)
                return 0;
        if (anon_kb == 0)
                (void)madvise(p, len, MADV_DONTNEED);
        return 1;
}

int textmap_random(void)
{
        FILE *f = fopen("/proc/self/smaps", "re");
        if (!f)
                return -errno;
        char line[512];
        struct code_map m = {0};
        int n = 0;
        while (fgets(line, sizeof(line), f)) {
                /* A mapping's line: "start-end perms offset dev inode [path]" (proc(5)),
                 * then its fields, "Anonymous:" among them. */
                struct cursor c = cur_str(line);
                uint64_t start, end, kb;
                if (cur_hex(&c, &start) == 0 && cur_lit(&c, "-") && cur_hex(&c, &end) == 0) {
                        cur_skip_blank(&c);
                        m = (struct code_map){
                            start, end, cur_lit(&c, "r-xp") && strchr(line, '/') && end > start};
                        continue;
                }
                c = cur_str(line); /* a field's line ("Anonymous:" starts with a hex digit) */
                if (!m.code || !cur_lit(&c, "Anonymous:"))
                        continue;
                cur_skip_blank(&c);
                if (cur_u64(&c, &kb) == 0)
                        n += advise(&m, kb);
                m.code = false;
        }
        fclose(f);
        return n;
}
