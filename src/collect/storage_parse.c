/* SPDX-License-Identifier: Apache-2.0 */
/* Storage health parsers. See storage_parse.h.
 *
 * Kernel messages matched (prefixes as the kernel prints them):
 *   fs/ext4/super.c     "EXT4-fs error (device %s): ..." and ext4_msg's "EXT4-fs (%s): "
 *                       (KERN_CRIT for errors and "Remounting filesystem read-only")
 *   fs/f2fs/super.c     f2fs_printk's "F2FS-fs (%s): "
 *   drivers/mmc/        "mmcblk0: error %d transferring data", "mmc0: Timeout waiting for
 *                       hardware interrupt." (pr_err)
 *   block/blk-core.c    "I/O error, dev %s, sector %llu"; fs/buffer.c "Buffer I/O error
 *                       on dev %pg, logical block %llu" */
#include "collect/storage_parse.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "util/parse.h"
#include "util/hot.h"

#define LOG_LEVEL_ERR 3

const char *const storage_err_names[STORAGE_ERR_COUNT] = {
    [STORAGE_ERR_MMC] = "mmc",
    [STORAGE_ERR_EXT4] = "ext4",
    [STORAGE_ERR_F2FS] = "f2fs",
    [STORAGE_ERR_IO] = "io",
};

/* Copy the field s[0..n) into out (cap bytes) undoing \NNN octal escapes.
 * 0, or -ENAMETOOLONG when it does not fit. */
static int unescape(const char *s, size_t n, char *out, size_t cap)
{
        size_t o = 0;
        for (size_t i = 0; i < n; i++) {
                char ch = s[i];
                if (ch == '\\' && n - i >= 4 && s[i + 1] >= '0' && s[i + 1] <= '3' &&
                    s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
                        ch =
                            (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
                        i += 3;
                }
                if (o + 1 >= cap)
                        return -ENAMETOOLONG;
                out[o++] = ch;
        }
        out[o] = '\0';
        return 0;
}

/* "ro" among the comma-separated options s[0..n). */
static bool has_ro(const char *s, size_t n)
{
        size_t start = 0;
        for (size_t i = 0; i <= n; i++) {
                if (i < n && s[i] != ',')
                        continue;
                if (i - start == 2 && s[start] == 'r' && s[start + 1] == 'o')
                        return true;
                start = i + 1;
        }
        return false;
}

/* The length of the mount point m when it is a prefix of path, else 0 ("/" is 1). */
static size_t prefix_len(const char *m, const char *path)
{
        size_t ml = strlen(m);
        if (ml == 0 || m[0] != '/')
                return 0;
        if (ml == 1)
                return 1;
        if (strncmp(m, path, ml) != 0 || (path[ml] != '\0' && path[ml] != '/'))
                return 0;
        return ml;
}

/* Parse the line l[0..n) into e. 0 or -EINVAL. */
static int parse_line(const char *l, size_t n, struct mount_entry *e)
{
        struct cursor c = cur_make(l, n);
        const char *f[4];
        size_t fl[4];
        for (int i = 0; i < 4; i++)
                if (cur_word(&c, &f[i], &fl[i]) < 0)
                        return -EINVAL;
        if (unescape(f[0], fl[0], e->device, sizeof(e->device)) < 0 ||
            unescape(f[1], fl[1], e->mount, sizeof(e->mount)) < 0 ||
            unescape(f[2], fl[2], e->fstype, sizeof(e->fstype)) < 0)
                return -EINVAL;
        e->readonly = has_ro(f[3], fl[3]);
        return 0;
}

int storage_mount_find(const char *buf, size_t n, const char *path, struct mount_entry *ret)
{
        struct cursor c = cur_make(buf, n);
        struct mount_entry e;
        size_t best = 0;
        while (!cur_eof(&c)) {
                const char *l;
                size_t ll;
                cur_line(&c, &l, &ll);
                if (parse_line(l, ll, &e) < 0)
                        continue;
                size_t p = prefix_len(e.mount, path);
                if (p > 0 && p >= best) {
                        best = p;
                        *ret = e;
                }
        }
        return best ? 0 : -ENOENT;
}

VIGIL_HOT double storage_full_in_s(const double *t_s, const double *avail, size_t n,
                                   double min_span_s)
{
        if (n < 3 || t_s[n - 1] - t_s[0] < min_span_s)
                return NAN;
        double mt = 0, ma = 0;
        for (size_t i = 0; i < n; i++) {
                mt += t_s[i];
                ma += avail[i];
        }
        mt /= (double)n;
        ma /= (double)n;
        double sxy = 0, sxx = 0;
        for (size_t i = 0; i < n; i++) {
                sxy += (t_s[i] - mt) * (avail[i] - ma);
                sxx += (t_s[i] - mt) * (t_s[i] - mt);
        }
        if (sxx <= 0)
                return NAN;
        double slope = sxy / sxx; /* bytes per second */
        if (!(slope < 0))
                return NAN;
        double now = avail[n - 1];
        return now <= 0 ? 0 : now / -slope;
}

int storage_classify(unsigned prio, const char *text)
{
        bool err = (prio & 7u) <= LOG_LEVEL_ERR;
        if (!strncmp(text, "EXT4-fs", 7))
                return err ? STORAGE_ERR_EXT4 : -1;
        if (!strncmp(text, "F2FS-fs", 7))
                return err ? STORAGE_ERR_F2FS : -1;
        if (strstr(text, "I/O error"))
                return STORAGE_ERR_IO;
        if (!strncmp(text, "mmc", 3))
                return err ? STORAGE_ERR_MMC : -1;
        return -1;
}
