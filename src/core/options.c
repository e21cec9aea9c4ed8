/* SPDX-License-Identifier: Apache-2.0 */
/* Options from the command line and the INI file, one table for both. See options.h. */
#include "core/options.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <ini.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/gpu_count.h"
#include "util/clock.h"
#include "util/conffile.h"
#include "util/parse.h"

enum opt_kind {
        K_DURATION, /* int64_t nanoseconds */
        K_COUNT,    /* uint64_t */
        K_DOUBLE,   /* double within [min, max] */
        K_STRING,   /* char[size] */
        K_FLAG,     /* bool, no argument on the command line */
        K_SPECIAL,  /* handled by set_special() */
};

struct opt_def {
        const char *name;
        enum opt_kind kind;
        size_t offset;
        size_t size;
        double min, max;
        const char *metavar;
        const char *help;
};

#define OFF(f) offsetof(struct vigil_options, f), sizeof(((struct vigil_options *)0)->f)

static const struct opt_def opt_table[] = {
    {"interval", K_DURATION, OFF(interval_ns), 0.01, 86400, "SEC",
     "host sampling interval (default 1; units ms, s, m, h accepted)"},
    {"gpu-interval", K_DURATION, OFF(gpu_interval_ns), 0.001, 86400, "SEC",
     "GPU sampling interval (default 0.1; as short as 0.001)"},
    {"gpu-proc-interval", K_DURATION, OFF(gpu_proc_interval_ns), 0.1, 86400, "SEC",
     "GPU process list interval (default 10; also at every Xid, crash and recovery)"},
    {"gpu-slow-interval", K_DURATION, OFF(gpu_slow_interval_ns), 0.1, 3600, "SEC",
     "slow GPU fields: ECC, remapped rows, PCIe replays, limits, thresholds (default 10)"},
    {"gpu-mid-interval", K_DURATION, OFF(gpu_mid_interval_ns), 0.001, 3600, "SEC",
     "GPU SM and video clocks (default 1; at or under --gpu-interval: every sample)"},
    {"pss-interval", K_DURATION, OFF(pss_interval_ns), 0.01, 86400, "SEC",
     "process PSS sampling interval (default 10)"},
    {"sync-interval", K_DURATION, OFF(sync_interval_ns), 0.01, 3600, "SEC",
     "make logs durable this often: a power cut loses at most SEC of rows (default 1)"},
    {"sync-whole-fs", K_FLAG, OFF(sync_whole_fs), 0, 0, NULL,
     "sync the logs with one syncfs of their file system even while other programs have "
     "unwritten data (for a log directory on a file system of its own)"},
    {"sync-per-file", K_FLAG, OFF(sync_per_file), 0, 0, NULL,
     "sync each log with its own fdatasync, never one syncfs of their file system"},
    {"count", K_COUNT, OFF(count), 1, 1e15, "N", "take N host samples, then exit"},
    {"duration", K_DURATION, OFF(duration_ns), 0.01, 30 * 86400.0, "SEC",
     "run this long, then exit"},
    {"log-dir", K_STRING, OFF(log_dir), 0, 0, "DIR",
     "where to write logs (default /var/log/vigil as root, else ~/.local/state/vigil)"},
    {"csv", K_STRING, OFF(csv_path), 0, 0, "FILE",
     "host CSV to exactly FILE, one header, no rotation (the reference monitor's --csv)"},
    {"no-log", K_FLAG, OFF(no_log), 0, 0, NULL, "write no files"},
    {"quiet", K_FLAG, OFF(quiet), 0, 0, NULL, "no live view"},
    {"no-gpu-clock-events", K_FLAG, OFF(no_gpu_clock_events), 0, 0, NULL,
     "do not follow the GPUs' clock-change events (no ClockBurst lines; an idle H200 raises "
     "ten a second)"},
    {"live", K_SPECIAL, OFF(live), 0, 0, NULL, "live view even when stdout is not a terminal"},
    {"listen", K_SPECIAL, OFF(listen), 0, 0, "ADDR:PORT",
     "serve /metrics and the dashboard (\":PORT\" = loopback only)"},
    {"web-config", K_STRING, OFF(web_config), 0, 0, "FILE",
     "TLS and basic-auth settings for --listen"},
    {"remote-write", K_STRING, OFF(remote_write), 0, 0, "URL",
     "push samples with Prometheus remote-write to URL, queued in the log dir"},
    {"remote-write-config", K_STRING, OFF(remote_write_config), 0, 0, "FILE",
     "auth, TLS, labels, cadence and queue bound for --remote-write"},
    {"alertmanager", K_STRING, OFF(alertmanager), 0, 0, "URL",
     "push critical and warning findings as alerts to the Alertmanager at URL"},
    {"alertmanager-config", K_STRING, OFF(alertmanager_config), 0, 0, "FILE",
     "URL, auth, TLS and resend delay for the Alertmanager"},
    {"root", K_STRING, OFF(root), 0, 0, "DIR", "read /proc, /sys and /dev under DIR"},
    {"watch", K_SPECIAL, OFF(watches), 0, 0, "NAME=PATTERN",
     "watch processes whose command line contains PATTERN, or with unit:UNIT the processes "
     "of that systemd unit and its restarts (repeatable)"},
    {"gpu", K_SPECIAL, OFF(gpu_list), 0, 0, "LIST", "GPUs to sample: all, none or 0,2"},
    {"nvml", K_STRING, OFF(nvml_path), 0, 0, "LIBRARY", "NVML library to load"},
    {"expected-gpus", K_SPECIAL, OFF(expected_gpus), 0, 0, "N",
     "GPUs the machine should have: fewer answering is a finding (default auto: the most "
     "NVML counted at a start, kept in vigil.state; 0: no check)"},
    {"spike-threshold", K_DOUBLE, OFF(spike_threshold_pct), 1, 1000, "PCT",
     "fan %/sample change flagged FAN_SPIKE (default 15)"},
    {"inversion-temp", K_DOUBLE, OFF(inversion_temp_c), 0, 200, "C",
     "TEMP_FAN_INV at or above this GPU temperature (default 85)"},
    {"inversion-fan", K_DOUBLE, OFF(inversion_fan_pct), 0, 200, "PCT",
     "TEMP_FAN_INV at or below this fan speed (default 55)"},
    {"spurious-power", K_DOUBLE, OFF(spurious_power_ratio), 0.01, 1, "RATIO",
     "SPUR_THROT below this share of the power limit (default 0.25)"},
    {"breach-flag", K_DOUBLE, OFF(breach_flag_w), 0, 10000, "W",
     "PWR+ flag when power exceeds the limit by more than this (default 50)"},
    {"tdp-epsilon", K_DOUBLE, OFF(tdp_epsilon_w), 0, 10000, "W",
     "power-limit changes smaller than this are noise (default 5)"},
    {"temp-warn", K_DOUBLE, OFF(temp_warn_c), 0, 200, "C", "warm mark (default 70)"},
    {"temp-crit", K_DOUBLE, OFF(temp_crit_c), 0, 200, "C", "HOT mark (default 80)"},
    {"shm-full", K_DOUBLE, OFF(shm_full_pct), 1, 100, "PCT",
     "/dev/shm full above this percentage (default 90)"},
    {"sd-endurance-tbw", K_DOUBLE, OFF(sd_endurance_tbw), 0.001, 1e6, "TB",
     "the SD card's rated endurance in terabytes written: days left at the write rate"},
    {"retention-days", K_COUNT, OFF(retention_days), 1, 3650, "DAYS",
     "keep daily files this long (default 14)"},
    {"min-disk-mb", K_COUNT, OFF(min_disk_mb), 0, 1e9, "MB",
     "pause writing under this much free space (default 500)"},
    {"profile", K_SPECIAL, OFF(profile), 0, 0, "NAME",
     "signage: 5 s interval, 60 s sync, watches player=run_linux.py and chromium=chromium"},
    {"config", K_STRING, OFF(config_path), 0, 0, "FILE", "read options from an INI file"},
    {"verbose", K_SPECIAL, OFF(verbose), 0, 0, NULL, "more messages"},
};

#define NOPTS (sizeof(opt_table) / sizeof(opt_table[0]))

void options_defaults(struct vigil_options *o)
{
        memset(o, 0, sizeof(*o));
        o->interval_ns = NSEC_PER_SEC;
        o->gpu_interval_ns = 100 * NSEC_PER_MSEC;
        o->pss_interval_ns = 10 * NSEC_PER_SEC;
        o->gpu_proc_interval_ns = 10 * NSEC_PER_SEC;
        o->gpu_slow_interval_ns = 10 * NSEC_PER_SEC;
        o->gpu_mid_interval_ns = NSEC_PER_SEC;
        o->sync_interval_ns = NSEC_PER_SEC;
        o->live = -1;
        snprintf(o->gpu_list, sizeof(o->gpu_list), "all");
        o->retention_days = 14;
        o->min_disk_mb = 500;
        o->spike_threshold_pct = 15;
        o->inversion_temp_c = 85;
        o->inversion_fan_pct = 55;
        o->spurious_power_ratio = 0.25;
        o->breach_flag_w = 50;
        o->tdp_epsilon_w = 5;
        o->temp_warn_c = 70;
        o->temp_crit_c = 80;
        o->shm_full_pct = 90;
        o->leak_procs_per_hour = 1;
        o->leak_pss_mb_per_hour = 10;
        o->expected_gpus = GPU_COUNT_AUTO;
}

static const struct opt_def *find_opt(const char *name)
{
        for (size_t i = 0; i < NOPTS; i++)
                if (strcmp(opt_table[i].name, name) == 0)
                        return &opt_table[i];
        return NULL;
}

static bool valid_watch_name(const char *s, size_t n)
{
        if (n == 0 || n >= sizeof(((struct watch_spec *)0)->name))
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-'))
                        return false;
        }
        return true;
}

/* A systemd unit name as unit names are spelled (systemd.unit(5): letters, digits and
 * ":-_.\", an instance after '@'); vigil also refuses a leading '-' (an option to
 * systemctl). */
static bool watch_unit_valid(const char *s, size_t n)
{
        if (n == 0 || n >= 100 || s[0] == '-')
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                          (c >= '0' && c <= '9') || strchr(":_.@\\-", c);
                if (!ok || !c)
                        return false;
        }
        return true;
}

const char *watch_spec_unit(const struct watch_spec *w)
{
        return strncmp(w->pattern, "unit:", 5) ? NULL : w->pattern + 5;
}

/* Add or replace a watch. */
static int add_watch(struct vigil_options *o, const char *name, size_t nlen, const char *pattern,
                     char *err, unsigned cap)
{
        size_t plen = strlen(pattern);
        if (!valid_watch_name(name, nlen)) {
                snprintf(err, cap, "watch name '%.*s' must be 1-31 letters, digits, _ or -",
                         (int)(nlen > 64 ? 64 : nlen), name);
                return -EINVAL;
        }
        if (plen == 0 || plen >= sizeof(o->watches[0].pattern)) {
                snprintf(err, cap, "watch '%.*s': pattern must be 1-127 characters", (int)nlen,
                         name);
                return -EINVAL;
        }
        if (plen >= 5 && !memcmp(pattern, "unit:", 5) && !watch_unit_valid(pattern + 5, plen - 5)) {
                snprintf(err, cap,
                         "watch '%.*s': unit:NAME needs a systemd unit name (letters, digits, "
                         ":_.@\\-, not starting with '-'), as player.service",
                         (int)nlen, name);
                return -EINVAL;
        }
        unsigned i;
        for (i = 0; i < o->nwatches; i++)
                if (strlen(o->watches[i].name) == nlen && !memcmp(o->watches[i].name, name, nlen))
                        break;
        if (i == o->nwatches) {
                if (o->nwatches == VIGIL_MAX_WATCHES) {
                        snprintf(err, cap, "too many watches (at most %d)", VIGIL_MAX_WATCHES);
                        return -EINVAL;
                }
                o->nwatches++;
        }
        copy_bounded(o->watches[i].name, sizeof(o->watches[i].name), name, nlen);
        copy_bounded(o->watches[i].pattern, sizeof(o->watches[i].pattern), pattern, plen);
        return 0;
}

static int set_watch(struct vigil_options *o, const char *value, char *err, unsigned cap)
{
        const char *eq = strchr(value, '=');
        if (!eq) {
                snprintf(err, cap, "--watch '%.64s': expected NAME=PATTERN", value);
                return -EINVAL;
        }
        return add_watch(o, value, (size_t)(eq - value), eq + 1, err, cap);
}

static int check_gpu_list(const char *v)
{
        if (!strcmp(v, "all") || !strcmp(v, "none"))
                return 0;
        struct cursor c = cur_str(v);
        for (;;) {
                uint64_t idx;
                if (cur_u64(&c, &idx) < 0 || idx >= VIGIL_MAX_GPUS)
                        return -EINVAL;
                if (cur_eof(&c))
                        return 0;
                if (!cur_lit(&c, ","))
                        return -EINVAL;
        }
}

/* ADDR:PORT, [V6]:PORT or :PORT with a port 1-65535. */
static int check_listen(const char *v)
{
        const char *colon = strrchr(v, ':');
        uint64_t port;
        if (!colon || parse_u64(colon + 1, strlen(colon + 1), &port) < 0 || port < 1 ||
            port > 65535)
                return -EINVAL;
        if (v[0] == '[' && (colon == v || colon[-1] != ']'))
                return -EINVAL;
        return 0;
}

/* An SD card: one synced write a minute per file in place of one every 5 s row. */
#define SIGNAGE_SYNC_INTERVAL_NS (60 * NSEC_PER_SEC)

/* Which options one source (the config file, the command line) gave: a profile from
 * that source sets only the others, so an option given wins over it wherever it
 * appears. */
struct opt_given {
        bool opt[NOPTS];  /* by index in opt_table */
        bool cli_watches; /* --watch on the command line: the only watches */
};

static void mark_given(struct opt_given *g, const struct opt_def *d)
{
        if (g && d)
                g->opt[d - opt_table] = true;
}

static bool was_given(const struct opt_given *g, const char *name)
{
        const struct opt_def *d = find_opt(name);
        return d && g->opt[d - opt_table];
}

/* --profile only names the profile; its values are set once its source is read. */
static int set_profile(struct vigil_options *o, const char *v, char *err, unsigned cap)
{
        if (strcmp(v, "signage") != 0) {
                snprintf(err, cap, "unknown profile '%.64s' (known: signage)", v);
                return -EINVAL;
        }
        snprintf(o->profile, sizeof(o->profile), "signage");
        return 0;
}

/* Add the profile's watch unless one of that name was given. */
static int profile_watch(struct vigil_options *o, const char *name, const char *pattern, char *err,
                         unsigned cap)
{
        for (unsigned i = 0; i < o->nwatches; i++)
                if (!strcmp(o->watches[i].name, name))
                        return 0;
        return add_watch(o, name, strlen(name), pattern, err, cap);
}

/* The profile's values, for the options its source g did not give. Its watches join
 * those of the config file; --watch on the command line replaces them all. */
static int apply_profile(struct vigil_options *o, const struct opt_given *g, char *err,
                         unsigned cap)
{
        if (strcmp(o->profile, "signage") != 0)
                return 0;
        if (!was_given(g, "interval"))
                o->interval_ns = 5 * NSEC_PER_SEC;
        if (!was_given(g, "sync-interval"))
                o->sync_interval_ns = SIGNAGE_SYNC_INTERVAL_NS;
        if (g->cli_watches)
                return 0;
        int r = profile_watch(o, "player", "run_linux.py", err, cap);
        return r < 0 ? r : profile_watch(o, "chromium", "chromium", err, cap);
}

static int set_special(struct vigil_options *o, const struct opt_def *d, const char *v, char *err,
                       unsigned cap)
{
        bool b;
        if (!strcmp(d->name, "watch"))
                return set_watch(o, v, err, cap);
        if (!strcmp(d->name, "profile"))
                return set_profile(o, v, err, cap);
        if (!strcmp(d->name, "live") || !strcmp(d->name, "verbose")) {
                if (parse_bool(v, &b) < 0)
                        goto bad;
                if (!strcmp(d->name, "live"))
                        o->live = b;
                else
                        o->verbose = b;
                return 0;
        }
        if (!strcmp(d->name, "gpu")) {
                if (check_gpu_list(v) < 0 || strlen(v) >= sizeof(o->gpu_list))
                        goto bad;
                snprintf(o->gpu_list, sizeof(o->gpu_list), "%s", v);
                return 0;
        }
        if (!strcmp(d->name, "expected-gpus")) {
                uint64_t n;
                if (!strcmp(v, "auto")) {
                        o->expected_gpus = GPU_COUNT_AUTO;
                        return 0;
                }
                if (parse_u64(v, strlen(v), &n) < 0 || n > GPU_COUNT_MAX)
                        goto bad;
                o->expected_gpus = (int)n;
                return 0;
        }
        if (!strcmp(d->name, "listen")) {
                if (check_listen(v) < 0 || strlen(v) >= sizeof(o->listen))
                        goto bad;
                snprintf(o->listen, sizeof(o->listen), "%s", v);
                return 0;
        }
bad:
        snprintf(err, cap, "invalid value for %s: '%.64s'", d->name, v);
        return -EINVAL;
}

static int set_value(struct vigil_options *o, const struct opt_def *d, const char *v, char *err,
                     unsigned cap)
{
        char *field = (char *)o + d->offset;
        int64_t ns;
        uint64_t u;
        double x;
        bool b;

        switch (d->kind) {
        case K_DURATION:
                if (parse_duration_ns(v, &ns) < 0 || ns < (int64_t)(d->min * 1e9) ||
                    ns > (int64_t)(d->max * 1e9)) {
                        snprintf(err, cap, "invalid value for %s: '%.64s' (%g s to %g s)", d->name,
                                 v, d->min, d->max);
                        return -EINVAL;
                }
                memcpy(field, &ns, sizeof(ns));
                return 0;
        case K_COUNT:
                if (parse_u64(v, strlen(v), &u) < 0 || (double)u < d->min || (double)u > d->max) {
                        snprintf(err, cap, "invalid value for %s: '%.64s' (%g to %g)", d->name, v,
                                 d->min, d->max);
                        return -EINVAL;
                }
                if (d->size == sizeof(unsigned)) {
                        unsigned small = (unsigned)u;
                        memcpy(field, &small, sizeof(small));
                } else {
                        memcpy(field, &u, sizeof(u));
                }
                return 0;
        case K_DOUBLE:
                if (parse_double(v, strlen(v), &x) < 0 || x < d->min || x > d->max) {
                        snprintf(err, cap, "invalid value for %s: '%.64s' (%g to %g)", d->name, v,
                                 d->min, d->max);
                        return -EINVAL;
                }
                memcpy(field, &x, sizeof(x));
                return 0;
        case K_STRING:
                if (v[0] == '\0' || strlen(v) >= d->size) {
                        snprintf(err, cap, "invalid value for %s: %s", d->name,
                                 v[0] ? "too long" : "empty");
                        return -EINVAL;
                }
                memcpy(field, v, strlen(v) + 1);
                return 0;
        case K_FLAG:
                if (parse_bool(v, &b) < 0) {
                        snprintf(err, cap, "invalid value for %s: '%.64s' (yes or no)", d->name, v);
                        return -EINVAL;
                }
                memcpy(field, &b, sizeof(b));
                return 0;
        case K_SPECIAL:
                return set_special(o, d, v, err, cap);
        }
        return -EINVAL;
}

int options_set(struct vigil_options *o, const char *key, const char *value, char *err,
                unsigned cap)
{
        const struct opt_def *d = find_opt(key);
        if (!d || !strcmp(key, "config")) {
                snprintf(err, cap, "unknown key '%.64s'", key);
                return -EINVAL;
        }
        return set_value(o, d, value, err, cap);
}

#define CONFIG_MAX_BYTES (1024 * 1024)

struct ini_ctx {
        struct vigil_options *o;
        struct opt_given *given;
        FILE *fp;
        int lineno; /* lines read so far: the handler runs on the line just read */
        char *err;
        unsigned cap;
        int failed;
};

/* A line reader that counts lines, so errors can name the line, and refuses what
 * the INI parser would silently mangle: a NUL byte, a line longer than its buffer. */
static char *ini_read_line(char *str, int num, void *stream)
{
        struct ini_ctx *ctx = stream;
        int n = 0, c = EOF;
        if (ctx->failed)
                return NULL;
        while (n < num - 1 && (c = getc(ctx->fp)) != EOF) {
                if (c == '\0') {
                        snprintf(ctx->err, ctx->cap, "line %d: NUL byte", ctx->lineno + 1);
                        ctx->failed = 1;
                        return NULL;
                }
                str[n++] = (char)c;
                if (c == '\n')
                        break;
        }
        if (n == 0)
                return NULL;
        str[n] = '\0';
        ctx->lineno++;
        if (c != '\n' && n == num - 1) {
                c = getc(ctx->fp);
                if (c != EOF && c != '\n') {
                        snprintf(ctx->err, ctx->cap, "line %d: longer than %d characters",
                                 ctx->lineno, num - 2);
                        ctx->failed = 1;
                        return NULL;
                }
        }
        return str;
}

static int on_ini_key(void *user, const char *section, const char *name, const char *value)
{
        struct ini_ctx *ctx = user;
        int lineno = ctx->lineno;
        char msg[256];
        int r;
        if (ctx->failed)
                return 0;
        if (!strcmp(section, "watch")) {
                r = add_watch(ctx->o, name, strlen(name), value, msg, sizeof(msg));
        } else if (section[0] == '\0' || !strcmp(section, "vigil")) {
                r = options_set(ctx->o, name, value, msg, sizeof(msg));
                mark_given(ctx->given, find_opt(name));
        } else {
                snprintf(msg, sizeof(msg), "unknown section [%.64s]", section);
                r = -EINVAL;
        }
        if (r < 0) {
                snprintf(ctx->err, ctx->cap, "line %d: %s", lineno, msg);
                ctx->failed = 1;
                return 0;
        }
        return 1;
}

/* Read the options of fp into o, marking them in given. On failure msg (cap bytes)
 * says what and on which line. 0 or -EINVAL. */
static int load_ini(struct vigil_options *o, FILE *fp, struct opt_given *given, char *msg,
                    unsigned cap)
{
        struct ini_ctx ctx = {o, given, fp, 0, msg, cap, 0};
        msg[0] = '\0';
        int r = ini_parse_stream(ini_read_line, &ctx, on_ini_key, &ctx);
        if (ctx.failed)
                return -EINVAL;
        if (r != 0) {
                snprintf(msg, cap, "line %d: not an INI line", r);
                return -EINVAL;
        }
        return 0;
}

/* Read the options of fp (named name in errors) into o, marking them in given. */
static int load_stream(struct vigil_options *o, FILE *fp, const char *name, struct opt_given *given,
                       char *err, unsigned cap)
{
        char msg[300];
        int r = load_ini(o, fp, given, msg, sizeof(msg));
        if (r < 0)
                snprintf(err, cap, "config %.512s: %s", name, msg);
        return r;
}

/* What conf_load hands the INI text to: o and given of the file being read. */
struct ini_file {
        struct vigil_options *o;
        struct opt_given *given;
};

static int parse_ini(const char *text, size_t len, const char *base_dir, void *cfg, char *err,
                     size_t cap)
{
        struct ini_file *f = cfg;
        (void)base_dir;
        /* An empty file: fmemopen refuses a zero-length buffer, and there is nothing to read. */
        if (len == 0)
                return 0;
        FILE *fp = fmemopen((void *)text, len, "r");
        if (!fp) {
                snprintf(err, cap, "%s", strerror(errno));
                return -errno;
        }
        int r = load_ini(f->o, fp, f->given, err, cap > 300 ? 300 : (unsigned)cap);
        fclose(fp);
        return r;
}

/* The file at path, read by the config reader every config file goes through
 * (util/conffile.c: a regular file, at most CONFIG_MAX_BYTES). */
static int load_file(struct vigil_options *o, const char *path, struct opt_given *given, char *err,
                     unsigned cap)
{
        char msg[900];
        struct ini_file f = {o, given};
        int r = conf_load(path, CONFIG_MAX_BYTES, parse_ini, &f, msg, sizeof(msg));
        if (r < 0) {
                snprintf(err, cap, "config %.*s", (int)(cap > 8 ? cap - 8 : 0), msg);
                return -EINVAL;
        }
        return 0;
}

int options_load_stream(struct vigil_options *o, FILE *fp, const char *name, char *err,
                        unsigned cap)
{
        struct opt_given given = {0};
        int r = load_stream(o, fp, name, &given, err, cap);
        return r < 0 ? r : apply_profile(o, &given, err, cap);
}

int options_load_file(struct vigil_options *o, const char *path, char *err, unsigned cap)
{
        struct opt_given given = {0};
        int r = load_file(o, path, &given, err, cap);
        return r < 0 ? r : apply_profile(o, &given, err, cap);
}

void options_usage(const char *prog)
{
        printf(
            "usage: %s [OPTIONS]\n"
            "       %s report [--html OUT] CSV...\n"
            "       %s status | snapshot [REASON] | xid CODE | postmortem [LOG-DIR]\n"
            "       %s health [--json] [--strict] | health clear COMPONENT REASON\n\n"
            "Records hardware telemetry: host, processes, Raspberry Pi firmware, NVIDIA GPUs.\n\n",
            prog, prog, prog, prog);
        for (size_t i = 0; i < NOPTS; i++) {
                const struct opt_def *d = &opt_table[i];
                char left[64];
                snprintf(left, sizeof(left), "--%s%s%s", d->name, d->metavar ? " " : "",
                         d->metavar ? d->metavar : "");
                printf("  %-28s %s\n", left, d->help);
        }
        printf("  %-28s %s\n  %-28s %s\n", "--help", "show this help", "--version",
               "show the version");
}

static bool takes_arg(const struct opt_def *d)
{
        return d->kind != K_FLAG && strcmp(d->name, "live") && strcmp(d->name, "verbose");
}

/* The config file is read first so that the command line wins. */
static int load_config_from_argv(struct vigil_options *o, int argc, char **argv,
                                 struct opt_given *given)
{
        char err[700];
        const char *path = NULL;
        for (int i = 1; i < argc; i++) {
                if (!strcmp(argv[i], "--"))
                        break;
                if (!strncmp(argv[i], "--config=", 9))
                        path = argv[i] + 9;
                else if (!strcmp(argv[i], "--config") && i + 1 < argc)
                        path = argv[++i];
        }
        if (!path)
                return 0;
        if (load_file(o, path, given, err, sizeof(err)) < 0) {
                options_error("%s", err);
                return -EINVAL;
        }
        return 0;
}

void options_error(const char *fmt, ...)
{
        char msg[1024], out[1200];
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        size_t i = 0, o = 0;
        for (; msg[i] && o + 8 < sizeof(out); i++) {
                unsigned char ch = (unsigned char)msg[i];
                if (ch < 0x20 || ch == 0x7f)
                        o += (size_t)snprintf(out + o, sizeof(out) - o, "\\x%02x", ch);
                else
                        out[o++] = (char)ch;
        }
        out[o] = '\0';
        bool cut = n >= (int)sizeof(msg) || msg[i] != '\0';
        fprintf(stderr, "vigil: %s%s\n", out, cut ? "..." : "");
}

/* --root must name a directory: a wrong one would record rows of nothing. */
static int check_root(const struct vigil_options *o)
{
        struct stat st;
        if (!o->root[0])
                return 0;
        if (stat(o->root, &st) < 0) {
                options_error("--root %.200s: %s", o->root, strerror(errno));
                return -EINVAL;
        }
        if (!S_ISDIR(st.st_mode)) {
                options_error("--root %.200s: not a directory", o->root);
                return -EINVAL;
        }
        return 0;
}

int options_parse(struct vigil_options *o, int argc, char **argv)
{
        struct option longopts[NOPTS + 3];
        char err[300];
        struct opt_given file = {0}, given = {0};

        /* The file, its profile under its keys; then the command line, its profile
         * under its options and over the file. */
        if (load_config_from_argv(o, argc, argv, &file) < 0)
                return -EINVAL;
        if (apply_profile(o, &file, err, sizeof(err)) < 0) {
                options_error("%s", err);
                return -EINVAL;
        }
        for (size_t i = 0; i < NOPTS; i++) {
                longopts[i].name = opt_table[i].name;
                longopts[i].has_arg = takes_arg(&opt_table[i]) ? required_argument : no_argument;
                longopts[i].flag = NULL;
                longopts[i].val = 1000 + (int)i;
        }
        longopts[NOPTS] = (struct option){"help", no_argument, NULL, 'h'};
        longopts[NOPTS + 1] = (struct option){"version", no_argument, NULL, 'V'};
        longopts[NOPTS + 2] = (struct option){NULL, 0, NULL, 0};

        optind = 1;
        opterr = 0;
        for (;;) {
                int li = -1;
                int c = getopt_long(argc, argv, ":hVq", longopts, &li);
                if (c == -1)
                        break;
                if (c == 'h') {
                        options_usage("vigil");
                        return 1;
                }
                if (c == 'V') {
                        printf("vigil %s\n", VIGIL_VERSION);
                        return 1;
                }
                if (c == 'q') {
                        o->quiet = true;
                        continue;
                }
                if (c == '?' || c == ':') {
                        const char *bad = argv[optind - 1] ? argv[optind - 1] : "?";
                        if (c == ':')
                                options_error("option %s needs a value", bad);
                        else
                                options_error("unknown option %.200s (see --help)", bad);
                        return -EINVAL;
                }
                const struct opt_def *d = &opt_table[c - 1000];
                if (!strcmp(d->name, "config"))
                        continue;
                if (!strcmp(d->name, "watch") && !given.cli_watches) {
                        /* Watches on the command line replace those of the file. */
                        o->nwatches = 0;
                        given.cli_watches = true;
                }
                const char *v = takes_arg(d) ? optarg : "yes";
                if (set_value(o, d, v, err, sizeof(err)) < 0) {
                        options_error("%s", err);
                        return -EINVAL;
                }
                mark_given(&given, d);
        }
        if (optind < argc) {
                options_error("unexpected argument '%.200s' (see --help)", argv[optind]);
                return -EINVAL;
        }
        if (was_given(&given, "profile") && apply_profile(o, &given, err, sizeof(err)) < 0) {
                options_error("%s", err);
                return -EINVAL;
        }
        if (o->sync_whole_fs && o->sync_per_file) {
                options_error("--sync-whole-fs and --sync-per-file ask for opposite syncs: "
                              "give one");
                return -EINVAL;
        }
        return check_root(o);
}

void options_resolve(struct vigil_options *o)
{
        if (o->log_dir[0])
                return;
        if (geteuid() == 0) {
                snprintf(o->log_dir, sizeof(o->log_dir), "/var/log/vigil");
                return;
        }
        const char *xdg = getenv("XDG_STATE_HOME");
        const char *home = getenv("HOME");
        if (xdg && xdg[0] == '/')
                snprintf(o->log_dir, sizeof(o->log_dir), "%s/vigil", xdg);
        else if (home && home[0] == '/')
                snprintf(o->log_dir, sizeof(o->log_dir), "%s/.local/state/vigil", home);
        else
                snprintf(o->log_dir, sizeof(o->log_dir), "/tmp/vigil-%u", (unsigned)geteuid());
}
