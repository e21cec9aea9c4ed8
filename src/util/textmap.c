/* Code mappings advised MADV_RANDOM. See textmap.h. */
#include "util/textmap.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "util/parse.h"

int textmap_random(void)
{
        FILE *f = fopen("/proc/self/maps", "re");
        if (!f)
                return -errno;
        char line[512];
        int n = 0;
        while (fgets(line, sizeof(line), f)) {
                /* "start-end perms offset dev inode path" (proc(5)) */
                struct cursor c = cur_str(line);
                uint64_t start, end;
                if (cur_hex(&c, &start) < 0 || !cur_lit(&c, "-") || cur_hex(&c, &end) < 0)
                        continue;
                cur_skip_blank(&c);
                if (!cur_lit(&c, "r-xp") || !strchr(line, '/') || end <= start)
                        continue;
                void *p = (void *)(uintptr_t)start;
                size_t len = (size_t)(end - start);
                if (madvise(p, len, MADV_RANDOM) == 0 && madvise(p, len, MADV_DONTNEED) == 0)
                        n++;
        }
        fclose(f);
        return n;
}
