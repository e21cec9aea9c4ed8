/* SPDX-License-Identifier: Apache-2.0 */
/* Pure parsers of the per-process files the procs source reads. See procs.h.
 *
 *   /proc/812/stat:         812 (python3) S 1 812 812 0 -1 4194560 ... 50000 7000 ... 9 0 1500 ...
 *   /proc/812/smaps_rollup: Pss:              184320 kB
 *   /proc/812/cmdline:      python3\0run_linux.py\0--fullscreen\0
 */
#include "collect/procs.h"

#include <errno.h>
#include <string.h>

#include "util/parse.h"

/* A number field of the stat line: digits, then a blank, a newline or the end. */
static int stat_u64(struct cursor *c, uint64_t *ret)
{
        uint64_t v;
        if (cur_u64(c, &v) < 0)
                return -EINVAL;
        if (!cur_eof(c) && *c->p != ' ' && *c->p != '\n')
                return -EINVAL;
        *ret = v;
        return 0;
}

/* Skip n whitespace-separated fields of any content (some are signed). */
static int stat_skip(struct cursor *c, unsigned n)
{
        const char *w;
        size_t wl;
        for (unsigned i = 0; i < n; i++)
                if (cur_word(c, &w, &wl) < 0)
                        return -EINVAL;
        return 0;
}

/* Fields 3 (state) to 22 (starttime), from just after the comm's closing ')'. */
static int stat_fields(struct cursor *c, struct proc_stat *st)
{
        const char *w;
        size_t wl;
        if (cur_word(c, &w, &wl) < 0 || wl != 1)
                return -EINVAL;
        st->state = w[0];
        if (stat_skip(c, 10) < 0) /* 4 ppid .. 13 cmajflt */
                return -EINVAL;
        if (stat_u64(c, &st->utime) < 0 || stat_u64(c, &st->stime) < 0)
                return -EINVAL;
        if (stat_skip(c, 4) < 0) /* 16 cutime .. 19 nice */
                return -EINVAL;
        if (stat_u64(c, &st->num_threads) < 0)
                return -EINVAL;
        if (stat_skip(c, 1) < 0) /* 21 itrealvalue */
                return -EINVAL;
        return stat_u64(c, &st->starttime);
}

int procs_parse_stat(const char *buf, size_t len, struct proc_stat *ret)
{
        struct cursor c = cur_make(buf, len);
        uint64_t pid;
        if (cur_u64(&c, &pid) < 0 || !cur_lit(&c, " ("))
                return -EINVAL;
        const char *open = c.p;
        const char *close = memrchr(open, ')', (size_t)(c.end - open));
        if (!close)
                return -EINVAL;
        struct proc_stat st;
        memset(&st, 0, sizeof(st));
        copy_bounded(st.comm, sizeof(st.comm), open, (size_t)(close - open));
        c.p = close + 1;
        if (stat_fields(&c, &st) < 0)
                return -EINVAL;
        *ret = st;
        return 0;
}

int procs_parse_pss_kb(const char *buf, size_t len, uint64_t *ret_kb)
{
        struct cursor c = cur_make(buf, len);
        while (!cur_eof(&c)) {
                if (cur_lit(&c, "Pss:")) {
                        uint64_t kb;
                        if (cur_u64(&c, &kb) < 0)
                                return -EINVAL;
                        cur_skip_blank(&c);
                        if (!cur_lit(&c, "kB"))
                                return -EINVAL;
                        *ret_kb = kb;
                        return 0;
                }
                cur_next_line(&c);
        }
        return -ENODATA;
}

size_t procs_cmdline_normalize(char *buf, size_t len, bool truncated)
{
        if (len == 0)
                return 0;
        bool nul_sep;
        if (truncated) {
                nul_sep = memchr(buf, '\0', len) != NULL;
        } else if (buf[len - 1] == '\0') {
                nul_sep = true;
                len--;
        } else {
                /* Rewritten with spaces: psutil then splits on spaces and keeps NULs. */
                nul_sep = false;
                if (buf[len - 1] == ' ')
                        len--;
        }
        if (nul_sep)
                for (size_t i = 0; i < len; i++)
                        if (buf[i] == '\0')
                                buf[i] = ' ';
        return len;
}

bool procs_cmdline_match(const char *cmd, size_t len, const char *pattern)
{
        size_t pl = strlen(pattern);
        if (len == 0 || pl == 0)
                return false;
        return memmem(cmd, len, pattern, pl) != NULL;
}

bool procs_cgroup_in_unit(const char *buf, size_t len, const char *unit)
{
        size_t ul = strlen(unit);
        struct cursor c = cur_make(buf, len);
        while (ul && !cur_eof(&c)) {
                const char *line, *path;
                size_t n;
                cur_line(&c, &line, &n);
                /* "hierarchy-ID:controllers:path"; the path after the second ':' */
                const char *colon = memchr(line, ':', n);
                colon = colon ? memchr(colon + 1, ':', n - (size_t)(colon + 1 - line)) : NULL;
                if (!colon)
                        continue;
                const char *end = line + n;
                for (path = colon + 1; path < end; path++) {
                        path = memchr(path, '/', (size_t)(end - path));
                        if (!path || (size_t)(end - path - 1) < ul)
                                break;
                        const char *comp = path + 1;
                        if (!memcmp(comp, unit, ul) && (comp + ul == end || comp[ul] == '/'))
                                return true;
                }
        }
        return false;
}
