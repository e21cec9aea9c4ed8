/* SPDX-License-Identifier: Apache-2.0 */
/* The post-mortem's kernel log of the previous boot. See pm_klog.h. A line it puts first:
 *   2026-12-03T03:01:02+0000 host kernel: NVRM: Xid (PCI:0000:01:00): 79, pid=1234, ... */
#include "report/pm_klog.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/gpu_klog.h"
#include "collect/xid_line.h"
#include "detect/xid_catalog.h"
#include "util/aer_line.h"
#include "util/pfile.h"
#include "util/spawn.h"
#include "util/zlib_lib.h"

static bool has_ci(const char *s, size_t n, const char *pat)
{
        size_t m = strlen(pat);
        for (size_t i = 0; i + m <= n; i++)
                if (!strncasecmp(s + i, pat, m))
                        return true;
        return false;
}

bool pm_klog_important(const char *s, size_t n)
{
        static const char *const pats[] = {
            "NVRM",          "Xid",     "AER",         "under-voltage", "undervoltage",
            "under voltage", "thermal", "temperature", "mmc",           "EXT4-fs",
            "panic",         "Oops",    "BUG:",        "Call Trace",    "I/O error",
        };
        /* The GPU lines of collect/gpu_klog.h that the words above miss. */
        static const char *const gpu_pats[] = {"Bus Error", "probe with driver nvidia",
                                               "nvidia: probe of"};
        for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++)
                if (has_ci(s, n, pats[i]))
                        return true;
        for (size_t i = 0; i < sizeof(gpu_pats) / sizeof(gpu_pats[0]); i++)
                if (has_ci(s, n, gpu_pats[i]))
                        return true;
        return false;
}

/* A line, with what vigil knows of it: an Xid's meaning; a GPU fallen off the bus
 * (its message joined over lines by j) as the Xid 79 it is; the other GPU kinds of
 * collect/gpu_klog.h by name. */
static void put_line(struct strbuf *out, const char *s, size_t n, struct klog_join *j)
{
        struct xid_line x;
        struct klog_event e;
        char pci[24] = "";
        sb_put_printable(out, s, n, false); /* a binary kern.log: never its raw bytes */
        bool known = klog_join_feed(j, s, n, &e) == 0;
        if (has_ci(s, n, "Xid") && xid_parse_line(s, n, &x) == 0) {
                const struct xid_info *c = xid_lookup(x.code);
                sb_printf(out, "  [Xid %u: %s]", x.code, c ? c->meaning : XID_NOT_IN_CATALOG);
        } else if (known && e.kind == KLOG_FALLEN_OFF_BUS) {
                if (e.have_pci)
                        klog_pci_format(pci, sizeof(pci), &e.pci);
                sb_printf(out, "  [GPU lost%s%s, as Xid 79: GPU has fallen off the bus]",
                          pci[0] ? " " : "", pci);
        } else if (known) {
                sb_printf(out, "  [%s]", klog_kind_names[e.kind]);
        }
        sb_putc(out, '\n');
}

/* Lines of text[0..n) in order; *pos advances. Journal notes ("-- No entries --",
 * "-- Boot ... --") are passed over. */
static bool next_line(const char *text, size_t n, size_t *pos, const char **s, size_t *len)
{
        while (*pos < n) {
                *s = text + *pos;
                const char *nl = memchr(*s, '\n', n - *pos);
                *len = nl ? (size_t)(nl - *s) : n - *pos;
                *pos += *len + 1;
                if (*len && !(*len >= 3 && !memcmp(*s, "-- ", 3)))
                        return true;
        }
        return false;
}

/* True when s[0..len) is an AER line of one of the GPUs' devices. */
static bool of_gpu(const char *s, size_t len, const struct pm_klog_gpus *g)
{
        for (unsigned i = 0; g && i < g->n; i++)
                if (aer_line_of_device(s, len, g->bdf[i]))
                        return true;
        return false;
}

/* The AER lines of the GPUs' devices (at most PM_KLOG_AER, the last ones), under their
 * title; nothing without a GPU named. */
static void gpu_aer(struct strbuf *out, const char *text, size_t n, const struct pm_klog_gpus *g)
{
        size_t pos = 0, len;
        const char *s;
        unsigned found = 0, k = 0;
        struct klog_join j = {0};
        if (!g || !g->n)
                return;
        while (next_line(text, n, &pos, &s, &len))
                found += of_gpu(s, len, g);
        unsigned skip = found > PM_KLOG_AER ? found - PM_KLOG_AER : 0;
        sb_puts(out, "PCIe errors (AER) of the GPUs' devices (");
        for (unsigned i = 0; i < g->n; i++)
                sb_printf(out, "%s%s", i ? ", " : "", g->bdf[i]);
        sb_printf(out, "): %u line%s%s\n", found, found == 1 ? "" : "s",
                  skip ? ", the last ones" : "");
        for (pos = 0; next_line(text, n, &pos, &s, &len);)
                if (of_gpu(s, len, g) && k++ >= skip)
                        put_line(out, s, len, &j);
}

void pm_klog_rank(struct strbuf *out, const char *text, size_t n, const struct pm_klog_gpus *gpus)
{
        size_t pos = 0, len;
        const char *s;
        unsigned lines = 0, important = 0, k = 0;
        gpu_aer(out, text, n, gpus);
        /* The GPUs' AER lines, shown above, are not counted again. */
        while (next_line(text, n, &pos, &s, &len)) {
                lines++;
                important += pm_klog_important(s, len) && !of_gpu(s, len, gpus);
        }
        unsigned skip = important > PM_KLOG_IMPORTANT ? important - PM_KLOG_IMPORTANT : 0;
        struct klog_join j = {0};
        sb_printf(out, "Important lines (%u of %u", important - skip, lines);
        sb_puts(out, skip ? ", the last ones):\n" : "):\n");
        for (pos = 0; next_line(text, n, &pos, &s, &len);)
                if (pm_klog_important(s, len) && !of_gpu(s, len, gpus) && k++ >= skip)
                        put_line(out, s, len, &j);
        if (!important)
                sb_puts(out, "(none)\n");
        unsigned from = lines > PM_KLOG_TAIL ? lines - PM_KLOG_TAIL : 0;
        j = (struct klog_join){0};
        sb_printf(out, "Last %u lines:\n", lines - from);
        k = 0;
        for (pos = 0; next_line(text, n, &pos, &s, &len);)
                if (k++ >= from)
                        put_line(out, s, len, &j);
}

/* Read at most max bytes from the end of path into out. Returns bytes read or -errno. */
static int read_tail(const char *path, size_t max, struct strbuf *out)
{
        struct stat st;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                close(fd);
                return -EINVAL;
        }
        off_t off = st.st_size > (off_t)max ? st.st_size - (off_t)max : 0;
        char buf[16384];
        int total = 0;
        for (;;) {
                ssize_t r = pread(fd, buf, sizeof(buf), off);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r <= 0 || (size_t)total >= max)
                        break;
                sb_put(out, buf, (size_t)r);
                off += r;
                total += (int)r;
        }
        close(fd);
        return total;
}

/* The journal's kernel log of the previous boot. True when it had one. */
static bool from_journal(struct strbuf *out, const char *root, const struct pm_klog_gpus *gpus)
{
        char dir[1200] = "";
        struct stat st;
        struct strbuf cap;
        struct spawn_result res = {.exit_status = -1};
        const char *argv[] = {"journalctl", "-k", "-b",        "-1", "-n", PM_KLOG_JOURNAL_N,
                              "--no-pager", "-o", "short-iso", NULL, NULL, NULL};
        if (root && root[0] && strcmp(root, "/")) {
                path_join(dir, sizeof(dir), root, "/var/log/journal");
                if (stat(dir, &st) == 0) {
                        argv[9] = "-D";
                        argv[10] = dir;
                }
        }
        if (sb_init_heap(&cap, 65536, PM_KLOG_MAX_BYTES + 4096) < 0) {
                sb_puts(out, "journal: (out of memory)\n");
                return false;
        }
        int r = spawn_capture(argv, PM_KLOG_TIMEOUT_NS, PM_KLOG_MAX_BYTES, &cap, &res);
        size_t pos = 0, len;
        const char *s;
        bool lines = r == 0 && res.exit_status == 0 && next_line(cap.buf, cap.len, &pos, &s, &len);
        if (r == -ENOENT) {
                sb_puts(out, "journal: journalctl not available\n");
        } else if (r == -ETIMEDOUT) {
                sb_printf(out,
                          "journal: journalctl -k -b -1 did not finish within %lld s: killed\n",
                          (long long)(PM_KLOG_TIMEOUT_NS / 1000000000));
        } else if (!lines) {
                const char *nl = memchr(cap.buf, '\n', cap.len);
                int first = (int)(nl ? (size_t)(nl - cap.buf) : cap.len);
                sb_printf(out,
                          "journal: no kernel log of the previous boot (journal not "
                          "persistent?): journalctl exit %d: %.*s\n",
                          res.exit_status, first > 200 ? 200 : first, cap.buf);
        } else {
                sb_printf(out, "journal: journalctl -k -b -1 -n %s%s%s (%zu bytes%s)\n",
                          PM_KLOG_JOURNAL_N, argv[9] ? " -D " : "", argv[9] ? dir : "", cap.len,
                          res.truncated ? ", cut" : "");
                pm_klog_rank(out, cap.buf, cap.len, gpus);
        }
        sb_free(&cap);
        return lines;
}

/* Read at most max bytes from the end of the gzip file path, inflated (zlib opened at
 * run time; at most PM_KLOG_GZ_INFLATE bytes inflated), into out. Bytes or -errno. */
static int read_gz_tail(const char *path, size_t max, struct strbuf *out)
{
        struct zlib_lib z;
        char why[160], buf[16384];
        size_t have = 0, total = 0;
        int n, fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return -errno;
        char *win = malloc(max);
        if (!win || zlib_lib_open(&z, why, sizeof(why)) < 0) {
                free(win);
                close(fd);
                return win ? -ENOSYS : -ENOMEM;
        }
        gzFile gz = z.gzdopen(fd, "rb");
        if (!gz) {
                close(fd);
                zlib_lib_close(&z);
                free(win);
                return -EIO;
        }
        while (total < PM_KLOG_GZ_INFLATE && (n = z.gzread(gz, buf, sizeof(buf))) > 0) {
                size_t r = (size_t)n;
                total += r;
                if (have + r > max) { /* keep the newest max bytes */
                        size_t drop = have + r - max < have ? have + r - max : have;
                        memmove(win, win + drop, have - drop);
                        have -= drop;
                }
                size_t take = r > max - have ? max - have : r;
                memcpy(win + have, buf + (r - take), take);
                have += take;
        }
        z.gzclose_r(gz); /* closes fd */
        zlib_lib_close(&z);
        sb_put(out, win, have);
        free(win);
        return (int)have;
}

/* kern.log.2.gz, kern.log.1 then kern.log (logrotate's names with delaycompress, oldest
 * first), and of that the previous boot: from its "Linux version" line to the current
 * boot's, or everything before the current boot's when the previous began earlier. */
static void from_kern_log(struct strbuf *out, const char *root, const struct pm_klog_gpus *gpus)
{
        static const char *const names[] = {"/var/log/kern.log.2.gz", "/var/log/kern.log.1",
                                            "/var/log/kern.log"};
        char path[1200];
        struct strbuf text;
        if (sb_init_heap(&text, 65536, PM_KLOG_MAX_BYTES + 65536) < 0)
                return;
        for (unsigned i = 0; i < 3; i++) {
                path_join(path, sizeof(path), root, names[i]);
                int r = i == 0 ? read_gz_tail(path, PM_KLOG_MAX_BYTES / 4, &text)
                               : read_tail(path, PM_KLOG_MAX_BYTES / 2, &text);
                if (r == -ENOENT && i == 0)
                        continue; /* rotated twice only on machines up for long */
                if (r < 0)
                        sb_printf(out, "%s: %s\n", names[i], strerror(-r));
                else
                        sb_printf(out, "%s: %d bytes read from its end\n", names[i], r);
                if (r > 0 && text.buf[text.len - 1] != '\n')
                        sb_putc(&text, '\n');
        }
        /* The current boot starts at its last "Linux version" line, the previous at the
         * one before it. */
        size_t start = 0, end = text.len;
        /* memmem, not strstr: a damaged log may hold NUL bytes before the line. */
        for (const char *p = text.buf;
             (p = memmem(p, text.len - (size_t)(p - text.buf), "Linux version ", 14)); p++) {
                start = end == text.len ? 0 : end;
                end = (size_t)(p - text.buf);
        }
        while (end > 0 && end < text.len && text.buf[end - 1] != '\n')
                end--;
        while (start > 0 && start < end && text.buf[start - 1] != '\n')
                start--;
        if (end > start)
                pm_klog_rank(out, text.buf + start, end - start, gpus);
        sb_free(&text);
}

/* Every regular file in dir (one level of subdirectories when deep), its tail. */
static unsigned pstore_dir(struct strbuf *out, const char *dir, bool deep, unsigned left)
{
        DIR *d = opendir(dir);
        struct dirent *e;
        unsigned n = 0;
        char path[1500];
        struct stat st;
        if (!d)
                return 0;
        while (n < left && (e = readdir(d))) {
                if (e->d_name[0] == '.')
                        continue;
                snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
                if (lstat(path, &st) < 0)
                        continue;
                if (S_ISDIR(st.st_mode) && deep) {
                        n += pstore_dir(out, path, false, left - n);
                } else if (S_ISREG(st.st_mode)) {
                        sb_printf(out, "--- %s (%lld bytes)\n", path, (long long)st.st_size);
                        struct strbuf tail; /* a dump may be binary: printable only */
                        bool have = sb_init_heap(&tail, 4096, 2 * PM_PSTORE_TAIL) == 0;
                        int r = have ? read_tail(path, PM_PSTORE_TAIL, &tail) : -ENOMEM;
                        if (r < 0)
                                sb_printf(out, "(cannot read: %s)", strerror(-r));
                        else
                                sb_put_printable(out, tail.buf, tail.len, true);
                        if (have)
                                sb_free(&tail);
                        if (out->len && out->buf[out->len - 1] != '\n')
                                sb_putc(out, '\n');
                        n++;
                }
        }
        closedir(d);
        return n;
}

void pm_klog_section(struct strbuf *out, const char *root, const struct pm_klog_gpus *gpus)
{
        char dir[1200];
        sb_puts(out, "=== Kernel log of the previous boot ===\n");
        if (!from_journal(out, root, gpus))
                from_kern_log(out, root, gpus);
        sb_puts(out, "\n=== Kernel crash dumps (pstore) ===\n");
        path_join(dir, sizeof(dir), root, "/sys/fs/pstore");
        unsigned n = pstore_dir(out, dir, false, PM_PSTORE_MAX_FILES);
        path_join(dir, sizeof(dir), root, "/var/lib/systemd/pstore");
        n += pstore_dir(out, dir, true, PM_PSTORE_MAX_FILES - n);
        if (!n)
                sb_puts(out, "none (/sys/fs/pstore and /var/lib/systemd/pstore hold no dump)\n");
        sb_putc(out, '\n');
}
