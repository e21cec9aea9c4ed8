/* SPDX-License-Identifier: Apache-2.0 */
/* The post-mortem. See postmortem.h. Its header:
 *   === VIGIL POST-MORTEM ===
 *   End: reboot: the machine rebooted or lost power under vigil (another boot) */
#include "report/postmortem.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/event_kinds.h"
#include "core/findings.h"
#include "report/pm_cause.h"
#include "report/pm_csv.h"
#include "report/pm_klog.h"
#include "report/tstamp.h"
#include "util/clock.h"
#include "util/fmt.h"
#include "util/parse.h"
#include "util/pfile.h"
#include "util/safedir.h"

static void put_time(struct strbuf *out, int64_t ns)
{
        char ts[48];
        fmt_time_iso_ms(ts, sizeof(ts), ns);
        sb_puts(out, ts);
}

/* This boot's uptime in seconds from ROOT/proc/uptime; NAN when unreadable. */
static double uptime_s(const char *root)
{
        char buf[128];
        double v;
        struct cursor c;
        if (read_line_at(root, "/proc/uptime", buf, sizeof(buf)) <= 0)
                return NAN;
        c = cur_str(buf);
        return cur_double(&c, &v) == 0 ? v : NAN;
}

static void header(struct strbuf *out, const struct postmortem_input *in,
                   const struct pm_csv_file *files, int nfiles, int64_t quiet_ns,
                   const struct postmortem_info *why)
{
        const struct runstate *p = in->prev;
        double up = uptime_s(in->root);
        sb_printf(out, "=== VIGIL POST-MORTEM ===\nCause: %s: %s\nWritten: ", why->cause,
                  why->cause_text);
        put_time(out, in->now_ns);
        sb_printf(out, "\nEnd: %s: %s\n", runstate_end_name(in->kind), runstate_end_text(in->kind));
        if (p) {
                sb_printf(out, "Previous run: pid %lld, started ", (long long)p->pid);
                put_time(out, p->started_ns);
                sb_printf(out, ", boot id %s\n", p->boot_id[0] ? p->boot_id : "unknown");
        }
        sb_printf(out, "This boot: id %s, up %s", in->boot_id[0] ? in->boot_id : "unknown",
                  isnan(up) ? "(unknown)" : "");
        if (!isnan(up))
                sb_printf(out, "%.0f s", up);
        sb_puts(out, "\nWent quiet: ");
        if (quiet_ns > 0)
                put_time(out, quiet_ns);
        else
                sb_puts(out, "(no row logged)");
        sb_putc(out, '\n');
        if (quiet_ns > 0) {
                /* After a reboot the machine was down until this boot began. A last row
                 * after that (a clock set back, an uptime that does not fit) gives no
                 * duration: never a negative one. */
                bool reboot = in->kind == RUNSTATE_REBOOT && !isnan(up);
                double until = reboot ? (double)in->now_ns / 1e9 - up : (double)in->now_ns / 1e9;
                double down = until - (double)quiet_ns / 1e9;
                const char *what = reboot ? "Machine down" : "vigil down";
                const char *to = reboot ? "this boot" : in->pending ? "now" : "this start";
                if (down >= 0)
                        sb_printf(out, "%s: %.0f s (from the last row to %s)\n", what, down, to);
                else
                        sb_printf(out,
                                  "%s: unknown (the last row is %.0f s after %s%s: the clock "
                                  "or the uptime is inconsistent)\n",
                                  what, -down, to, reboot ? " began" : "");
        }
        sb_puts(out, "Last rows:\n");
        for (int i = 0; i < nfiles; i++) {
                const struct pm_csv_file *f = &files[i];
                sb_printf(out, "  %s: %s%s\n", f->name, f->last_row[0] ? f->last_row : "(none)",
                          f->torn ? " (then a partial row)" : "");
        }
        if (!nfiles)
                sb_puts(out, "  (no CSV log in the log directory)\n");
        sb_putc(out, '\n');
}

#define EVENTS_TAIL 65535 /* bytes of events.log read back */

/* The end of dir/events.log (its last EVENTS_TAIL bytes) into buf; *ret_off is where
 * they begin in the file. The bytes read, or -errno. */
static ssize_t events_tail(const char *dir, char *buf, off_t *ret_off)
{
        char path[1200];
        struct stat st;
        snprintf(path, sizeof(path), "%s/events.log", dir);
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0 || fstat(fd, &st) < 0) {
                int e = errno;
                if (fd >= 0)
                        close(fd);
                return -e;
        }
        *ret_off = st.st_size > EVENTS_TAIL ? st.st_size - EVENTS_TAIL : 0;
        ssize_t n = pread(fd, buf, EVENTS_TAIL, *ret_off);
        int e = errno;
        close(fd);
        return n < 0 ? -e : n;
}

/* What happened in the run that ended, first: its unclean end, then the findings of
 * the events.log lines it wrote (those after its START line, before this start). */
static void findings_section(struct strbuf *out, const struct postmortem_input *in,
                             int64_t quiet_ns)
{
        char *buf = malloc(EVENTS_TAIL);
        struct findings *f = malloc(sizeof(*f));
        off_t off = 0;
        ssize_t n = buf && f ? events_tail(in->log_dir, buf, &off) : -ENOMEM;
        if (!f) {
                sb_puts(out, "What happened: (no memory)\n\n");
                free(buf);
                return;
        }
        findings_init(f);
        findings_note(f, FINDING_POSTMORTEM, "host", runstate_end_name(in->kind), 1,
                      quiet_ns > 0 ? (double)quiet_ns / 1e9 : NAN, runstate_end_text(in->kind));
        size_t len = n > 0 ? (size_t)n : 0, from = 0;
        if (off > 0) { /* the first line is cut */
                char *nl = memchr(buf, '\n', len);
                from = nl ? (size_t)(nl - buf) + 1 : len;
        }
        /* The run's own lines: from its START on, none of this start's. */
        struct tstamp_cache tc = {0};
        size_t start = from;
        for (int pass = 0; pass < 2; pass++) {
                for (size_t i = from; i < len;) {
                        char *nl = memchr(buf + i, '\n', len - i);
                        size_t e = nl ? (size_t)(nl - buf) : len;
                        const char *sp = memchr(buf + i, ' ', e - i);
                        double t;
                        if (sp && tstamp_parse(&tc, buf + i, (size_t)(sp - (buf + i)), &t) == 0 &&
                            t * 1e9 < (double)in->now_ns - 1e6) {
                                const char *text = sp + 1;
                                size_t tn = (size_t)(buf + e - text);
                                if (pass == 0 && event_kind_of(&(struct event_line){text, tn}) ==
                                                     event_kind(EV_START))
                                        start = i;
                                else if (pass == 1 && i >= start)
                                        findings_feed_event(f, t, text, tn);
                        }
                        i = e + 1;
                }
        }
        findings_sort(f);
        findings_text(f, "", out);
        if (n < 0)
                sb_printf(out, "  (events.log not read: %s)\n", strerror((int)-n));
        sb_putc(out, '\n');
        free(f);
        free(buf);
}

#define PM_WORK_GPUS 64 /* GPUs whose last workloads the post-mortem names */

/* Whose work was on each GPU: the workloads of its last process list in events.log
 * (type=GPU_PROCESSES ... workloads=, core/workload.h), one line per GPU, latest first
 * in the file's order. Written only when some line names a workload. */
static void workloads_section(struct strbuf *out, const char *dir)
{
        char *buf = malloc(EVENTS_TAIL);
        off_t off = 0;
        ssize_t n = buf ? events_tail(dir, buf, &off) : -ENOMEM;
        size_t len = n > 0 ? (size_t)n : 0;
        size_t at[PM_WORK_GPUS], ends[PM_WORK_GPUS];
        unsigned gpu_of[PM_WORK_GPUS], ngpu = 0;
        for (size_t i = 0; i < len;) {
                char *nl = memchr(buf + i, '\n', len - i);
                size_t e = nl ? (size_t)(nl - buf) : len;
                const char *sp = memchr(buf + i, ' ', e - i);
                struct event_line l = {sp ? sp + 1 : buf + i, sp ? (size_t)(buf + e - sp - 1) : 0};
                char g[12], w[8];
                uint64_t gpu;
                if ((i > 0 || off == 0) && sp &&
                    event_kind_of(&l) == event_kind(EV_GPU_PROCESSES) &&
                    event_field(&l, "workloads", w, sizeof(w)) &&
                    event_field(&l, "gpu", g, sizeof(g)) && parse_u64(g, strlen(g), &gpu) == 0) {
                        unsigned k = 0;
                        while (k < ngpu && gpu_of[k] != gpu)
                                k++;
                        if (k < PM_WORK_GPUS) {
                                gpu_of[k] = (unsigned)gpu;
                                at[k] = i;
                                ends[k] = e;
                                ngpu += k == ngpu;
                        }
                }
                i = e + 1;
        }
        if (ngpu > 0) {
                sb_puts(out, "=== Whose work was on the GPUs (their last process list) ===\n");
                for (unsigned k = 0; k < ngpu; k++) {
                        const char *sp = memchr(buf + at[k], ' ', ends[k] - at[k]);
                        struct event_line l = {sp + 1, (size_t)(buf + ends[k] - sp - 1)};
                        char reason[16], work[768];
                        event_field(&l, "reason", reason, sizeof(reason));
                        event_field(&l, "workloads", work, sizeof(work));
                        sb_printf(out, "GPU %u at %.*s (%s): %s\n", gpu_of[k],
                                  (int)(sp - (buf + at[k])), buf + at[k], reason, work);
                }
                sb_putc(out, '\n');
        }
        free(buf);
}

/* The last POSTMORTEM_EVENTS lines of events.log (its last 64 KB). */
static void events_section(struct strbuf *out, const char *dir)
{
        char *buf = malloc(EVENTS_TAIL);
        off_t off = 0;
        sb_puts(out, "=== Last events (events.log) ===\n");
        ssize_t n = buf ? events_tail(dir, buf, &off) : -ENOMEM;
        if (n < 0) {
                sb_printf(out, "(cannot read events.log: %s)\n\n", strerror((int)-n));
                free(buf);
                return;
        }
        size_t len = (size_t)n, lines = 0, start = 0;
        for (size_t i = len; i-- > 0;)
                if (buf[i] == '\n' && i + 1 < len && ++lines > POSTMORTEM_EVENTS) {
                        start = i + 1;
                        break;
                }
        if (off > 0 && start == 0) {
                char *nl = memchr(buf, '\n', len);
                start = nl ? (size_t)(nl - buf) + 1 : len;
        }
        sb_put(out, buf + start, len - start);
        if (len > start && buf[len - 1] != '\n')
                sb_putc(out, '\n');
        if (len == start)
                sb_puts(out, "(none)\n");
        sb_putc(out, '\n');
        free(buf);
}

/* Snapshot files of sub (crashes, incidents) written in the minutes before the end. */
static void snapshots_of(struct strbuf *out, const char *dir, const char *sub, int64_t quiet_ns,
                         unsigned *count)
{
        char path[1200], file[1500];
        struct stat st;
        snprintf(path, sizeof(path), "%s/%s", dir, sub);
        DIR *d = opendir(path);
        if (!d)
                return;
        struct dirent *e;
        unsigned n = 0;
        int64_t from = quiet_ns / 1000000000 - POSTMORTEM_SNAP_S;
        while ((e = readdir(d)) && n < POSTMORTEM_MAX_SNAPS) {
                if (e->d_name[0] == '.')
                        continue;
                snprintf(file, sizeof(file), "%s/%s", path, e->d_name);
                if (lstat(file, &st) < 0 || !S_ISREG(st.st_mode) || st.st_mtime < from)
                        continue;
                sb_printf(out, "%s/%s (%lld bytes, written ", sub, e->d_name,
                          (long long)st.st_size);
                put_time(out, (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec);
                sb_puts(out, ")\n");
                n++;
        }
        closedir(d);
        *count += n;
}

static void snapshots_section(struct strbuf *out, const char *dir, int64_t quiet_ns)
{
        unsigned n = 0;
        sb_printf(out, "=== Snapshots of the last %d minutes ===\n", POSTMORTEM_SNAP_S / 60);
        if (quiet_ns > 0) {
                snapshots_of(out, dir, "crashes", quiet_ns, &n);
                snapshots_of(out, dir, "incidents", quiet_ns, &n);
        }
        if (!n)
                sb_puts(out, "(none)\n");
        sb_putc(out, '\n');
}

/* What follows the header and the findings: the rows, events, snapshots and kernel log. */
static void body(struct strbuf *out, const struct postmortem_input *in,
                 const struct pm_csv_file *files, int n, int64_t quiet_ns)
{
        workloads_section(out, in->log_dir);
        sb_printf(out, "=== Rows of the last %.0f s before the end ===\n", PM_WINDOW_S);
        if (n < 0)
                sb_printf(out, "(cannot read %s: %s)\n", in->log_dir, strerror(-n));
        for (int i = 0; i < n; i++)
                pm_csv_section(out, in->log_dir, &files[i]);
        events_section(out, in->log_dir);
        snapshots_section(out, in->log_dir, quiet_ns);
        /* Same boot: the kernel log goes on in this boot's dmesg; nothing was lost. */
        if (in->kind == RUNSTATE_REBOOT || in->kind == RUNSTATE_UNKNOWN)
                pm_klog_section(out, in->root, in->gpus);
}

/* The cause into why->cause and why->cause_text; body (NULL: none) is the post-mortem's
 * sections, whose previous boot's kernel log is evidence too. */
static void decide(const struct postmortem_input *in, const struct pm_csv_file *files, int n,
                   int64_t quiet_ns, const struct strbuf *body_text, struct postmortem_info *why)
{
        struct pm_evidence *e = malloc(sizeof(*e));
        char evidence[PM_CAUSE_TEXT];
        if (!e) {
                snprintf(why->cause, sizeof(why->cause), "unknown");
                snprintf(why->cause_text, sizeof(why->cause_text), "(no memory to decide)");
                return;
        }
        pm_evidence_gather(in->log_dir, in->root, in->kind, in->prev ? in->prev->started_ns : 0,
                           quiet_ns, files, n > 0 ? n : 0, e);
        if (body_text && body_text->buf)
                pm_evidence_klog(e, body_text->buf, body_text->len);
        enum pm_cause c = pm_cause_decide(e, in->kind, evidence, sizeof(evidence));
        snprintf(why->cause, sizeof(why->cause), "%s", pm_cause_name(c));
        struct strbuf sb;
        sb_init_fixed(&sb, why->cause_text, sizeof(why->cause_text));
        sb_printf(&sb, "%s, %s", pm_cause_text(c), evidence);
        free(e);
}

void postmortem_build(const struct postmortem_input *in, struct strbuf *out, int64_t *ret_quiet_ns)
{
        postmortem_build_info(in, out, ret_quiet_ns, NULL);
}

void postmortem_build_info(const struct postmortem_input *in, struct strbuf *out,
                           int64_t *ret_quiet_ns, struct postmortem_info *ret_info)
{
        struct postmortem_info why;
        memset(&why, 0, sizeof(why));
        struct pm_csv_file *files = calloc(PM_MAX_FILES, sizeof(*files));
        int n = files ? pm_csv_find(in->log_dir, files, PM_MAX_FILES) : -ENOMEM;
        double last = NAN;
        for (int i = 0; i < n; i++)
                if (!isnan(files[i].last_t) && (isnan(last) || files[i].last_t > last))
                        last = files[i].last_t;
        int64_t quiet_ns = isnan(last) ? 0 : (int64_t)(last * 1e9);
        /* The sections first, so that the cause on the line under the title can name
         * what the previous boot's kernel log said. */
        struct strbuf rest = {0};
        bool full = !in->brief && sb_init_heap(&rest, 65536, POSTMORTEM_MAX_BYTES) == 0;
        if (full)
                body(&rest, in, files, n, quiet_ns);
        decide(in, files, n, quiet_ns, full ? &rest : NULL, &why);
        header(out, in, files, n > 0 ? n : 0, quiet_ns, &why);
        findings_section(out, in, quiet_ns);
        if (full) {
                sb_put(out, rest.buf, rest.len);
                if (rest.overflow)
                        out->overflow = true;
                sb_free(&rest);
        } else if (!in->brief) {
                body(out, in, files, n, quiet_ns);
        }
        if (out->overflow)
                sb_puts(out, "(post-mortem cut at its size limit)\n");
        if (ret_quiet_ns)
                *ret_quiet_ns = quiet_ns;
        if (ret_info) {
                memcpy(ret_info->cause, why.cause, sizeof(why.cause));
                memcpy(ret_info->cause_text, why.cause_text, sizeof(why.cause_text));
        }
        free(files);
}

/* buf to dir/name through a synced temporary file and a rename. 0 or -errno. */
static int write_file(const char *dir, const char *name, const char *buf, size_t len)
{
        char tmp[1300], path[1300];
        snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name);
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0640);
        if (fd < 0)
                return -errno;
        size_t done = 0;
        int r = 0;
        while (done < len && r == 0) {
                ssize_t w = write(fd, buf + done, len - done);
                if (w < 0 && errno != EINTR)
                        r = -errno;
                else if (w > 0)
                        done += (size_t)w;
        }
        if (r == 0 && fsync(fd) < 0)
                r = -errno;
        close(fd);
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r < 0)
                unlink(tmp);
        int dfd = r == 0 ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
        if (dfd >= 0) {
                fsync(dfd);
                close(dfd);
        }
        return r;
}

int postmortem_write(const struct postmortem_input *in, struct postmortem_info *ret)
{
        char dir[1100], stamp[32], name[64];
        struct strbuf sb;
        struct stat st;
        int64_t quiet_ns = 0;
        if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", in->log_dir, POSTMORTEM_DIR) >= sizeof(dir))
                return -ENAMETOOLONG;
        int made = safedir_make(dir, 0750); /* never through a symbolic link */
        if (made < 0)
                return made;
        fmt_stamp(stamp, sizeof(stamp), in->now_ns);
        snprintf(name, sizeof(name), "postmortem-%s.log", stamp);
        /* Two unclean ends within a second keep both. */
        for (unsigned i = 2; i < 100; i++) {
                char path[1200];
                snprintf(path, sizeof(path), "%s/%s", dir, name);
                if (stat(path, &st) < 0)
                        break;
                snprintf(name, sizeof(name), "postmortem-%s-%u.log", stamp, i);
        }
        if (sb_init_heap(&sb, 65536, POSTMORTEM_MAX_BYTES) < 0)
                return -ENOMEM;
        struct postmortem_info why;
        memset(&why, 0, sizeof(why));
        postmortem_build_info(in, &sb, &quiet_ns, &why);
        int r = write_file(dir, name, sb.buf, sb.len);
        sb_free(&sb);
        if (r < 0)
                return r;
        memset(ret, 0, sizeof(*ret));
        memcpy(ret->cause, why.cause, sizeof(why.cause));
        memcpy(ret->cause_text, why.cause_text, sizeof(why.cause_text));
        ret->kind = in->kind;
        ret->written_ns = in->now_ns;
        ret->quiet_ns = quiet_ns;
        snprintf(ret->rel, sizeof(ret->rel), "%s/%s", POSTMORTEM_DIR, name);
        snprintf(ret->path, sizeof(ret->path), "%s/%s", dir, name);
        return 0;
}

/* "Key: value" of the header in text: the value, NUL-terminated in place; NULL if absent. */
static char *header_field(char *text, const char *key)
{
        size_t k = strlen(key);
        for (char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
                if (strncmp(p, key, k))
                        continue;
                char *nl = strchr(p + k, '\n');
                if (nl)
                        *nl = '\0';
                return p + k;
        }
        return NULL;
}

static int64_t field_time(char *text, const char *key)
{
        struct tstamp_cache c = {0};
        char *v = header_field(text, key);
        double t;
        if (!v || tstamp_parse(&c, v, strlen(v), &t) < 0)
                return 0;
        return (int64_t)(t * 1e9);
}

/* The number after the stamp: 1 for "postmortem-20261203-035320.log", N for "...-N.log". */
static unsigned name_seq(const char *name)
{
        uint64_t v;
        const char *p = name + strlen("postmortem-YYYYMMDD-HHMMSS");
        if (*p != '-' || parse_u64(p + 1, strlen(p + 1) - 4, &v) < 0 || v > 1000)
                return 1;
        return (unsigned)v;
}

/* Name a was written after name b (the same second: the higher number). */
static bool name_newer(const char *a, const char *b)
{
        size_t k = strlen("postmortem-YYYYMMDD-HHMMSS");
        int c = strncmp(a, b, k);
        return c > 0 || (c == 0 && name_seq(a) > name_seq(b));
}

int postmortem_latest(const char *log_dir, struct postmortem_info *ret)
{
        char dir[1100], best[256] = "", text[4096];
        snprintf(dir, sizeof(dir), "%s/%s", log_dir, POSTMORTEM_DIR);
        DIR *d = opendir(dir);
        if (!d)
                return -errno;
        struct dirent *e;
        while ((e = readdir(d))) {
                size_t n = strlen(e->d_name);
                if (n < 30 || n >= sizeof(best) || strncmp(e->d_name, "postmortem-", 11) ||
                    strcmp(e->d_name + n - 4, ".log"))
                        continue;
                if (!best[0] || name_newer(e->d_name, best))
                        snprintf(best, sizeof(best), "%s", e->d_name);
        }
        closedir(d);
        if (!best[0])
                return -ENOENT;
        struct postmortem_info pm;
        memset(&pm, 0, sizeof(pm));
        snprintf(pm.rel, sizeof(pm.rel), "%s/%.50s", POSTMORTEM_DIR, best);
        snprintf(pm.path, sizeof(pm.path), "%s/%s", dir, best);
        int n = read_file_at(NULL, pm.path, text, sizeof(text));
        if (n < 0)
                return n;
        /* Each field is read from a fresh copy: reading one cuts the text at its end. */
        char copy[sizeof(text)];
        memcpy(copy, text, (size_t)n + 1);
        pm.written_ns = field_time(copy, "Written: ");
        memcpy(copy, text, (size_t)n + 1);
        pm.quiet_ns = field_time(copy, "Went quiet: ");
        memcpy(copy, text, (size_t)n + 1);
        char *cause = header_field(copy, "Cause: ");
        char *colon = cause ? strchr(cause, ':') : NULL;
        if (colon) {
                copy_bounded(pm.cause, sizeof(pm.cause), cause, (size_t)(colon - cause));
                copy_bounded(pm.cause_text, sizeof(pm.cause_text), colon + 1 + (colon[1] == ' '),
                             strlen(colon + 1 + (colon[1] == ' ')));
        }
        memcpy(copy, text, (size_t)n + 1);
        char *end = header_field(copy, "End: ");
        pm.kind = RUNSTATE_UNKNOWN;
        for (int k = 0; end && k < RUNSTATE_END_COUNT; k++) {
                const char *name = runstate_end_name((enum runstate_end)k);
                if (!strncmp(end, name, strlen(name)) && end[strlen(name)] == ':')
                        pm.kind = (enum runstate_end)k;
        }
        *ret = pm;
        return 0;
}

int postmortem_pending(const char *log_dir, const char *root, bool brief, struct strbuf *out)
{
        struct runstate prev;
        char boot_id[40] = "";
        int r = runstate_load(log_dir, &prev);
        if (r < 0)
                return r;
        if (prev.stopped_ns)
                return -ENOENT;
        runstate_boot_id(root, boot_id, sizeof(boot_id));
        struct pm_klog_gpus gpus = {0};
        for (unsigned i = 0; i < prev.nbus && gpus.n < PM_KLOG_MAX_GPUS; i++)
                snprintf(gpus.bdf[gpus.n++], sizeof(gpus.bdf[0]), "%s", prev.gpu_bus[i]);
        struct postmortem_input in = {.log_dir = log_dir,
                                      .root = root,
                                      .kind = runstate_classify(&prev, boot_id),
                                      .prev = &prev,
                                      .boot_id = boot_id,
                                      .now_ns = now_real_ns(),
                                      .gpus = &gpus,
                                      .brief = brief,
                                      .pending = true};
        sb_printf(out,
                  "(not written yet: the last run, pid %lld, ended uncleanly and vigil has not "
                  "started since; the next start writes this to %s/%s/)\n",
                  (long long)prev.pid, log_dir, POSTMORTEM_DIR);
        postmortem_build(&in, out, NULL);
        return 0;
}

int postmortem_cmd(const char *log_dir)
{
        struct postmortem_info pm;
        char buf[65536];
        int r = postmortem_latest(log_dir, &pm);
        if (r < 0) {
                fprintf(stderr, "vigil: no post-mortem in %s/%s%s%s\n", log_dir, POSTMORTEM_DIR,
                        r == -ENOENT ? "" : ": ", r == -ENOENT ? "" : strerror(-r));
                return 1;
        }
        int fd = open(pm.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0) {
                fprintf(stderr, "vigil: cannot read %s: %s\n", pm.path, strerror(errno));
                return 1;
        }
        ssize_t n;
        while ((n = read(fd, buf, sizeof(buf))) > 0)
                fwrite(buf, 1, (size_t)n, stdout);
        close(fd);
        return 0;
}
