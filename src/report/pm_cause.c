/* SPDX-License-Identifier: Apache-2.0 */
/* The cause of an unclean end. See pm_cause.h for the order and the sources. */
#include "report/pm_cause.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/event_kinds.h"
#include "report/tstamp.h"
#include "util/parse.h"
#include "util/pfile.h"
#include "util/strbuf.h"

#define EVENTS_TAIL     (256 * 1024) /* events.log read from its end */
#define PSTORE_HEAD     4096         /* a pstore record's start: its header and first lines */
#define WDIOF_CARDRESET 0x0020       /* include/uapi/linux/watchdog.h */
#define MAX_WATCHDOGS   8

static const struct {
        const char *name, *text;
} causes[PM_CAUSE_COUNT] = {
    [PM_CAUSE_PANIC] = {"panic", "kernel panic"},
    [PM_CAUSE_BROWNOUT] = {"brownout", "brown-out (under-voltage)"},
    [PM_CAUSE_THERMAL] = {"thermal", "overheating"},
    [PM_CAUSE_OOM] = {"oom", "out of memory"},
    [PM_CAUSE_GPU_LOST] = {"gpu_lost", "GPU lost"},
    [PM_CAUSE_WATCHDOG] = {"watchdog", "hardware watchdog reset"},
    [PM_CAUSE_KILLED] = {"killed", "vigil killed (the machine ran on)"},
    [PM_CAUSE_POWER_CUT] = {"power_cut_or_hang", "power cut or hard hang"},
};

const char *pm_cause_name(enum pm_cause c)
{
        return (unsigned)c < PM_CAUSE_COUNT ? causes[c].name : "?";
}

const char *pm_cause_text(enum pm_cause c)
{
        return (unsigned)c < PM_CAUSE_COUNT ? causes[c].text : "?";
}

int pm_cause_find(const char *name)
{
        for (int c = 0; c < PM_CAUSE_COUNT; c++)
                if (!strcmp(causes[c].name, name))
                        return c;
        return -1;
}

/* Note cause c with its evidence (the first noted is kept). */
static void note(struct pm_evidence *e, enum pm_cause c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void note(struct pm_evidence *e, enum pm_cause c, const char *fmt, ...)
{
        if (e->held[c])
                return;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->text[c], sizeof(e->text[c]), fmt, ap);
        va_end(ap);
        e->held[c] = true;
}

/* ---- pstore ---- */

/* The record at path: a panic when its header says so; its panic line into why. */
static bool pstore_panic(const char *path, char *why, size_t cap)
{
        char buf[PSTORE_HEAD];
        int n = read_file_at(NULL, path, buf, sizeof(buf));
        if (n <= 0 || strncmp(buf, "Panic#", 6))
                return false;
        const char *line = strstr(buf, "Kernel panic - not syncing: ");
        const char *nl = line ? strchr(line, '\n') : NULL;
        why[0] = '\0';
        if (line)
                copy_bounded(why, cap, line, nl ? (size_t)(nl - line) : strlen(line));
        return true;
}

/* Panic records (dmesg-*) in dir, and one level of subdirectories when deep. */
static void pstore_dir(struct pm_evidence *e, const char *dir, const char *shown, bool deep,
                       int64_t since_ns)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        char path[1400], why[160];
        struct stat st;
        while (d && (de = readdir(d)) && !e->held[PM_CAUSE_PANIC]) {
                if (de->d_name[0] == '.')
                        continue;
                snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
                if (lstat(path, &st) < 0)
                        continue;
                if (deep && S_ISDIR(st.st_mode)) {
                        pstore_dir(e, path, shown, false, since_ns);
                        continue;
                }
                int64_t t = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
                if (!S_ISREG(st.st_mode) || strncmp(de->d_name, "dmesg-", 6) || t < since_ns ||
                    !pstore_panic(path, why, sizeof(why)))
                        continue;
                note(e, PM_CAUSE_PANIC, "%s/%s%s%s", shown, de->d_name, why[0] ? ": " : "", why);
        }
        if (d)
                closedir(d);
}

static void pstore(struct pm_evidence *e, const char *root, int64_t since_ns)
{
        char dir[1200];
        if (path_join(dir, sizeof(dir), root, "/sys/fs/pstore") == 0)
                pstore_dir(e, dir, "/sys/fs/pstore", false, since_ns);
        if (path_join(dir, sizeof(dir), root, "/var/lib/systemd/pstore") == 0)
                pstore_dir(e, dir, "/var/lib/systemd/pstore", true, since_ns);
}

/* ---- watchdogs ---- */

static void watchdogs(struct pm_evidence *e, const char *root)
{
        char path[256], buf[32];
        for (unsigned i = 0; i < MAX_WATCHDOGS && !e->held[PM_CAUSE_WATCHDOG]; i++) {
                uint64_t v;
                snprintf(path, sizeof(path), "/sys/class/watchdog/watchdog%u/bootstatus", i);
                int n = read_line_at(root, path, buf, sizeof(buf));
                if (n > 0 && parse_u64(buf, (size_t)n, &v) == 0 && (v & WDIOF_CARDRESET))
                        note(e, PM_CAUSE_WATCHDOG, "%s = %llu (WDIOF_CARDRESET)", path,
                             (unsigned long long)v);
        }
}

/* ---- the host log's last seconds ---- */

static void host_rows(struct pm_evidence *e, const char *log_dir, const struct pm_csv_file *files,
                      int n)
{
        for (int i = 0; i < n; i++) {
                struct pm_pi_end pe;
                if (files[i].gpu || pm_csv_pi_end(log_dir, &files[i], PM_CAUSE_WINDOW_S, &pe) < 0)
                        continue;
                if (pe.undervolt_rows)
                        note(e, PM_CAUSE_BROWNOUT,
                             "under-voltage in %u of the %u rows of the last %.0f s of %s "
                             "(throttled 0x%x)",
                             pe.undervolt_rows, pe.rows, PM_CAUSE_WINDOW_S, files[i].name,
                             (unsigned)pe.throttled_or);
                if (pe.softtemp_rows)
                        note(e, PM_CAUSE_THERMAL,
                             "the soft temperature limit in %u of the %u rows of the last %.0f s "
                             "of %s",
                             pe.softtemp_rows, pe.rows, PM_CAUSE_WINDOW_S, files[i].name);
                if (!isnan(pe.max_temp_c) && pe.max_temp_c >= PM_CAUSE_HOT_C)
                        note(e, PM_CAUSE_THERMAL, "%.1f C in the last %.0f s of %s", pe.max_temp_c,
                             PM_CAUSE_WINDOW_S, files[i].name);
        }
}

/* ---- events.log's last minute ---- */

static bool field_is(const struct event_line *l, const char *key, const char *want)
{
        char v[64];
        return event_field(l, key, v, sizeof(v)) && !strcmp(v, want);
}

/* One events.log line's text l (after its time stamp), when ts. */
static void event_line(struct pm_evidence *e, const struct event_line *l, const char *ts)
{
        const struct event_kind_desc *d = event_kind_of(l);
        const struct event_kind_desc *k[] = {
            event_kind(EV_RPI_THROTTLE), event_kind(EV_RPI_TEMP),    event_kind(EV_TEMP_OVER_MAX),
            event_kind(EV_OOM_KILL),     event_kind(EV_NVML_FAILED), event_kind(EV_KERNEL_GPU),
            event_kind(EV_NVML_EVENT),   event_kind(EV_GPU_COUNT)};
        int len = (int)(l->n < 160 ? l->n : 160);
        if (!d)
                return;
        if (d == k[0] && field_is(l, "condition", "under-voltage") && field_is(l, "state", "set"))
                note(e, PM_CAUSE_BROWNOUT, "events.log %s %.*s", ts, len, l->s);
        else if ((d == k[1] && (field_is(l, "level", "hot") || field_is(l, "level", "crit"))) ||
                 (d == k[2] && field_is(l, "state", "above")))
                note(e, PM_CAUSE_THERMAL, "events.log %s %.*s", ts, len, l->s);
        else if (d == k[3])
                note(e, PM_CAUSE_OOM, "events.log %s %.*s", ts, len, l->s);
        else if (d == k[4] || (d == k[5] && field_is(l, "kind", "fallen_off_bus")) ||
                 (d == k[6] && field_is(l, "xid", "79")) ||
                 (d == k[7] && field_is(l, "state", "missing")))
                note(e, PM_CAUSE_GPU_LOST, "events.log %s %.*s", ts, len, l->s);
}

/* Split the tail into lines: their time stamps and texts; calls back for those of the
 * last minute before end (the last line's time when end is 0). */
static void events(struct pm_evidence *e, const char *log_dir, int64_t end_ns)
{
        char path[1200];
        snprintf(path, sizeof(path), "%s/events.log", log_dir);
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        struct stat st;
        char *buf = fd >= 0 && fstat(fd, &st) == 0 ? malloc(EVENTS_TAIL + 1) : NULL;
        off_t off = buf && st.st_size > EVENTS_TAIL ? st.st_size - EVENTS_TAIL : 0;
        ssize_t n = buf ? pread(fd, buf, EVENTS_TAIL, off) : -1;
        if (fd >= 0)
                close(fd);
        if (n <= 0) {
                free(buf);
                return;
        }
        struct tstamp_cache c = {0};
        double end = (double)end_ns / 1e9, t;
        for (int pass = end_ns ? 1 : 0; pass < 2; pass++) {
                for (char *p = buf, *stop = buf + n; p < stop;) {
                        char *nl = memchr(p, '\n', (size_t)(stop - p));
                        char *le = nl ? nl : stop, *sp = memchr(p, ' ', (size_t)(le - p));
                        if (sp && tstamp_parse(&c, p, (size_t)(sp - p), &t) == 0) {
                                struct event_line l = {sp + 1, (size_t)(le - sp - 1)};
                                char ts[40];
                                copy_bounded(ts, sizeof(ts), p, (size_t)(sp - p));
                                if (pass == 0)
                                        end = t;
                                else if (t >= end - PM_CAUSE_EVENTS_S && t <= end + 5)
                                        event_line(e, &l, ts);
                        }
                        p = le + 1;
                }
        }
        free(buf);
}

/* ---- the previous boot's kernel log, its last lines ---- */

void pm_evidence_klog(struct pm_evidence *e, const char *text, size_t n)
{
        static const char section[] = "=== Kernel log of the previous boot ===";
        const char *end = text + n, *p = text, *hit, *last = NULL;
        char uv[PM_CAUSE_TEXT] = "";
        while ((hit = memmem(p, (size_t)(end - p), section, sizeof(section) - 1))) {
                p = hit + sizeof(section) - 1;
                last = NULL;
                /* its tail: after "Last N lines:", to the next section */
                const char *stop = memmem(p, (size_t)(end - p), "\n===", 4);
                const char *q = p;
                while ((q = memmem(q, (size_t)((stop ? stop : end) - q), "\nLast ", 6))) {
                        last = q + 1;
                        q++;
                }
                if (!last)
                        continue;
                const char *tail_end = stop ? stop : end;
                for (const char *l = last, *le; l < tail_end; l = le + 1) {
                        le = memchr(l, '\n', (size_t)(tail_end - l));
                        if (!le)
                                le = tail_end;
                        size_t ln = (size_t)(le - l);
                        int shown = (int)(ln < 160 ? ln : 160);
                        if (memmem(l, ln, "Kernel panic - not syncing", 26))
                                note(e, PM_CAUSE_PANIC, "kernel log: %.*s", shown, l);
                        else if (memmem(l, ln, "ut of memory", 12) &&
                                 memmem(l, ln, "Killed process ", 15))
                                note(e, PM_CAUSE_OOM, "kernel log: %.*s", shown, l);
                        else if (memmem(l, ln, "critical temperature reached", 28))
                                note(e, PM_CAUSE_THERMAL, "kernel log: %.*s", shown, l);
                        else if (memmem(l, ln, "Undervoltage detected!", 22))
                                snprintf(uv, sizeof(uv), "kernel log: %.*s", shown, l);
                        else if (memmem(l, ln, "Voltage normalised", 18))
                                uv[0] = '\0';
                }
        }
        if (uv[0])
                note(e, PM_CAUSE_BROWNOUT, "%s", uv);
}

void pm_evidence_gather(const char *log_dir, const char *root, enum runstate_end kind,
                        int64_t prev_start_ns, int64_t end_ns, const struct pm_csv_file *files,
                        int n, struct pm_evidence *ret)
{
        memset(ret, 0, sizeof(*ret));
        if (kind != RUNSTATE_KILLED) {
                pstore(ret, root, prev_start_ns);
                watchdogs(ret, root);
        }
        host_rows(ret, log_dir, files, n);
        events(ret, log_dir, end_ns);
}

enum pm_cause pm_cause_decide(const struct pm_evidence *e, enum runstate_end kind, char *out,
                              size_t cap)
{
        bool same_boot = kind == RUNSTATE_KILLED;
        enum pm_cause c = same_boot ? PM_CAUSE_KILLED : PM_CAUSE_POWER_CUT;
        for (int i = 0; i < PM_CAUSE_KILLED; i++) {
                /* The machine ran on: of the machine's ends only an OOM kill can be vigil's. */
                if (e->held[i] && (!same_boot || i == PM_CAUSE_OOM)) {
                        c = (enum pm_cause)i;
                        break;
                }
        }
        if (c == PM_CAUSE_KILLED)
                snprintf(out, cap, "the same boot: vigil alone ended (a signal or its own crash)");
        else if (c == PM_CAUSE_POWER_CUT)
                snprintf(out, cap,
                         "another boot, and no panic record, watchdog reset, "
                         "under-voltage, heat, OOM kill or GPU loss before it");
        else
                snprintf(out, cap, "%s", e->text[c]);
        return c;
}
