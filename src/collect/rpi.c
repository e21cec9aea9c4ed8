/* The Raspberry Pi source. See rpi.h for where each value comes from.
 *
 *   47236                      (ROOT/sys/class/thermal/thermal_zone0/temp, m°C)
 *   tag 0x00030046 0x50005     (ROOT/dev/vcio as a fixture: the fake firmware) */
#include "collect/rpi.h"
#include "util/log.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/rpi_fw.h"
#include "collect/rpi_sysfs.h"
#include "collect/rpi_vcgencmd.h"
#include "util/clock.h"
#include "util/parse.h"
#include "util/pfile.h"
#include "util/strbuf.h"

#define SYSFS_NUM_BUF    64
#define VCGENCMD_GIVE_UP 3 /* samples in a row with no answer at all */

struct rpi_source {
        char root[1024];
        char model[64];
        int generation;
        const struct rpi_transport_ops *ops;
        void *priv; /* the open transport; NULL while closed */
        char vcio_path[4096];
        unsigned mask;           /* values asked of the mailbox */
        bool use_vcgencmd;       /* the mailbox could not be opened at start */
        bool vcgencmd_missing;   /* vcgencmd cannot be run or never answers: stop trying */
        unsigned vcgencmd_fails; /* samples in a row in which vcgencmd answered nothing */
        const char *vcgencmd;
        bool diag_pending;
        char diag[320];
        struct pfile thermal, uv_alarm, volt_in, cur_freq, max_freq, gpu_stats;
        unsigned nv3d;
        struct v3d_queue_stat v3d_prev[VIGIL_V3D_QUEUES];
};

static void set_diagnostic(struct rpi_source *s, int err)
{
        struct strbuf sb;
        sb_init_fixed(&sb, s->diag, sizeof(s->diag));
        if (err == -EACCES || err == -EPERM)
                sb_printf(&sb,
                          "cannot open %s: permission denied; add the user vigil runs as to the "
                          "'video' group (usermod -aG video USER) to read the firmware directly; "
                          "until then values come from sysfs and vcgencmd",
                          s->vcio_path);
        else
                sb_printf(&sb, "cannot open %s: %s; values come from sysfs and vcgencmd instead",
                          s->vcio_path, strerror(-err));
        s->diag_pending = true;
}

/* Open whichever sysfs files this kernel has; a missing one is simply not used. */
static void open_sysfs(struct rpi_source *s)
{
        char path[256], dir[128];
        if (rpi_find_thermal_zone(s->root, "cpu-thermal", path, sizeof(path)) == 0)
                pfile_open(&s->thermal, s->root, path, SYSFS_NUM_BUF);
        if (rpi_find_hwmon(s->root, "rpi_volt", dir, sizeof(dir)) == 0) {
                snprintf(path, sizeof(path), "%s/in0_lcrit_alarm", dir);
                pfile_open(&s->uv_alarm, s->root, path, SYSFS_NUM_BUF);
                snprintf(path, sizeof(path), "%s/in0_input", dir);
                pfile_open(&s->volt_in, s->root, path, SYSFS_NUM_BUF);
        }
        pfile_open(&s->cur_freq, s->root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq",
                   SYSFS_NUM_BUF);
        pfile_open(&s->max_freq, s->root, "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq",
                   SYSFS_NUM_BUF);
        if (rpi_find_gpu_stats(s->root, path, sizeof(path)) == 0)
                pfile_open(&s->gpu_stats, s->root, path, V3D_STATS_MAX_BYTES);
}

static void close_all(struct rpi_source *s)
{
        if (s->priv)
                s->ops->close(s->priv);
        s->priv = NULL;
        pfile_close(&s->thermal);
        pfile_close(&s->uv_alarm);
        pfile_close(&s->volt_in);
        pfile_close(&s->cur_freq);
        pfile_close(&s->max_freq);
        pfile_close(&s->gpu_stats);
}

/* Pi 5 and later answer only some tags: ask once, keep the ones answered. */
static void probe_tags(struct rpi_source *s)
{
        double vals[RPI_V_COUNT];
        unsigned answered;
        int r = rpi_fw_query(s->ops, s->priv, RPI_V_ALL, vals, &answered);
        if (r == 0 || r == -EBADMSG)
                s->mask = answered;
}

static int open_mailbox(struct rpi_source *s)
{
        int r = s->ops->open(s->vcio_path, &s->priv);
        if (r < 0) {
                s->priv = NULL;
                return r;
        }
        return 0;
}

int rpi_source_open(struct vigil_ctx *ctx, const struct rpi_transport_ops *ops, void **ret_state)
{
        struct rpi_source *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        copy_bounded(s->root, sizeof(s->root), ctx->opt->root, strlen(ctx->opt->root));
        s->thermal.fd = s->uv_alarm.fd = s->volt_in.fd = -1;
        s->cur_freq.fd = s->max_freq.fd = s->gpu_stats.fd = -1;
        int r = rpi_read_model(s->root, s->model, sizeof(s->model));
        if (r <= 0) {
                free(s);
                return -ENODEV;
        }
        s->generation = rpi_model_generation(s->model);
        s->vcgencmd = "vcgencmd";
        s->mask = RPI_V_ALL;
        r = path_join(s->vcio_path, sizeof(s->vcio_path), s->root, "/dev/vcio");
        if (r < 0) {
                free(s);
                return r;
        }
        s->ops = ops ? ops : rpi_transport_pick(s->vcio_path);
        r = open_mailbox(s);
        if (r < 0) {
                s->use_vcgencmd = true;
                set_diagnostic(s, r);
        } else if (s->generation >= 5) {
                probe_tags(s);
        }
        open_sysfs(s);
        *ret_state = s;
        return 0;
}

/* A whole-number sysfs attribute. */
static int read_num(struct pfile *f, double *ret)
{
        int64_t v;
        if (!pfile_is_open(f) || pfile_read(f) < 0 || f->truncated ||
            parse_i64(f->buf, f->len, &v) < 0)
                return -ENODATA;
        *ret = (double)v;
        return 0;
}

/* sysfs for each value in want that is still missing. */
static void fill_sysfs(struct rpi_source *s, double *vals, enum rpi_origin *org, unsigned want)
{
        double x;
        for (unsigned v = 0; v < RPI_V_COUNT; v++) {
                if (!(want & RPI_V_BIT(v)) || !isnan(vals[v]))
                        continue;
                int r = -ENODATA;
                switch (v) {
                case RPI_V_TEMP:
                        if ((r = read_num(&s->thermal, &x)) == 0)
                                x /= 1000.0;
                        break;
                case RPI_V_VOLT:
                        if ((r = read_num(&s->volt_in, &x)) == 0)
                                x /= 1000.0;
                        break;
                case RPI_V_ARM:
                case RPI_V_ARM_MAX:
                        r = read_num(v == RPI_V_ARM ? &s->cur_freq : &s->max_freq, &x);
                        if (r == 0)
                                x *= 1000.0;
                        break;
                case RPI_V_THROTTLED:
                        /* Only the under-voltage bit: the alarm is bit 16 of a word the
                         * kernel reads with its sticky bits cleared every 2 s. */
                        if ((r = read_num(&s->uv_alarm, &x)) == 0)
                                x = x != 0 ? 1.0 : 0.0;
                        break;
                }
                if (r == 0 && x >= 0) {
                        vals[v] = x;
                        org[v] = RPI_SRC_SYSFS;
                }
        }
}

/* One run per missing value, all of them within one VCGENCMD_TIMEOUT_MS budget so a
 * hung firmware cannot hold the sample for long; after a timeout the rest wait for
 * the next sample. Given up after VCGENCMD_GIVE_UP samples with no answer at all. */
static void fill_vcgencmd(struct rpi_source *s, double *vals, enum rpi_origin *org)
{
        int64_t deadline = now_mono_ns() + (int64_t)VCGENCMD_TIMEOUT_MS * NSEC_PER_MSEC;
        unsigned tried = 0, got = 0;
        for (unsigned v = 0; v < RPI_V_COUNT && !s->vcgencmd_missing; v++) {
                double x;
                if (!isnan(vals[v]))
                        continue;
                int64_t left_ms = (deadline - now_mono_ns()) / NSEC_PER_MSEC;
                if (left_ms <= 0)
                        break;
                int r = rpi_fw_vcgencmd(s->vcgencmd, (enum rpi_value)v, (int)left_ms, &x);
                if (r != -ENOTSUP)
                        tried++;
                if (r == -ENOENT)
                        s->vcgencmd_missing = true;
                if (r == -ETIMEDOUT)
                        break;
                if (r == 0) {
                        vals[v] = x;
                        org[v] = RPI_SRC_VCGENCMD;
                        got++;
                }
        }
        /* A vcgencmd that cannot reach the firmware either (it opens the same device)
         * fails every time: after a few such samples, stop paying for the spawns. */
        s->vcgencmd_fails = tried > 0 && got == 0 ? s->vcgencmd_fails + 1 : 0;
        if (s->vcgencmd_fails >= VCGENCMD_GIVE_UP)
                s->vcgencmd_missing = true;
}

/* One mailbox round trip; reopens a transport closed after a failure. */
static int fill_mailbox(struct rpi_source *s, double *vals, enum rpi_origin *org)
{
        if (!s->priv) {
                int r = open_mailbox(s);
                if (r < 0)
                        return r;
        }
        unsigned got = 0;
        int r = rpi_fw_query(s->ops, s->priv, s->mask, vals, &got);
        for (unsigned v = 0; v < RPI_V_COUNT; v++)
                if (got & RPI_V_BIT(v))
                        org[v] = RPI_SRC_MAILBOX;
        if (r < 0 && r != -EBADMSG && r != -EPROTO) {
                s->ops->close(s->priv);
                s->priv = NULL;
        }
        return r;
}

static void sample_v3d(struct rpi_source *s, struct rpi_frame *r)
{
        struct v3d_queue_stat cur[VIGIL_V3D_QUEUES];
        if (!pfile_is_open(&s->gpu_stats) || pfile_read(&s->gpu_stats) < 0)
                return;
        unsigned n = v3d_stats_parse(s->gpu_stats.buf, s->gpu_stats.len, cur, VIGIL_V3D_QUEUES);
        for (unsigned i = 0; i < n; i++) {
                copy_bounded(r->v3d[i].queue, sizeof(r->v3d[i].queue), cur[i].name,
                             strlen(cur[i].name));
                r->v3d[i].jobs = (double)cur[i].jobs;
                if (i < s->nv3d)
                        r->v3d[i].busy_ratio = v3d_busy_ratio(&s->v3d_prev[i], &cur[i]);
                s->v3d_prev[i] = cur[i];
        }
        r->nv3d = n;
        s->nv3d = n;
}

static void store(struct rpi_frame *r, const double *vals, const enum rpi_origin *org)
{
        r->temp_c = vals[RPI_V_TEMP];
        r->volt_core_v = vals[RPI_V_VOLT];
        r->arm_hz = vals[RPI_V_ARM];
        r->core_hz = vals[RPI_V_CORE];
        r->v3d_hz = vals[RPI_V_V3D];
        r->h264_hz = vals[RPI_V_H264];
        r->pixel_hz = vals[RPI_V_PIXEL];
        r->arm_max_hz = vals[RPI_V_ARM_MAX];
        /* The word is 32 bits (a mailbox u32, or vcgencmd's hex): exact in the double the
         * sources share, an integer from here on. */
        r->throttled_valid = vals[RPI_V_THROTTLED] >= 0 && vals[RPI_V_THROTTLED] < 4294967296.0;
        r->throttled = r->throttled_valid ? (uint64_t)vals[RPI_V_THROTTLED] : 0;
        r->temp_src = org[RPI_V_TEMP];
        r->volt_src = org[RPI_V_VOLT];
        r->clock_src = org[RPI_V_ARM];
        r->throttle_src = org[RPI_V_THROTTLED];
}

int rpi_source_sample(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct rpi_source *s = state;
        struct rpi_frame *r = &ctx->frame->rpi;
        double vals[RPI_V_COUNT];
        enum rpi_origin org[RPI_V_COUNT];
        int ret = 0;
        (void)t;
        for (unsigned v = 0; v < RPI_V_COUNT; v++) {
                vals[v] = NAN;
                org[v] = RPI_SRC_NONE;
        }
        rpi_frame_clear(r);
        r->present = true;
        copy_bounded(r->model, sizeof(r->model), s->model, strlen(s->model));
        if (!s->use_vcgencmd) {
                ret = fill_mailbox(s, vals, org);
                fill_sysfs(s, vals, org, RPI_V_ALL);
        } else {
                fill_sysfs(s, vals, org, RPI_V_ALL & ~RPI_V_BIT(RPI_V_THROTTLED));
                fill_vcgencmd(s, vals, org);
                fill_sysfs(s, vals, org, RPI_V_BIT(RPI_V_THROTTLED));
        }
        store(r, vals, org);
        sample_v3d(s, r);
        return ret;
}

void rpi_source_close(void *state)
{
        struct rpi_source *s = state;
        if (!s)
                return;
        close_all(s);
        free(s);
}

const char *rpi_source_diagnostic(const void *state)
{
        const struct rpi_source *s = state;
        return s && s->diag_pending ? s->diag : NULL;
}

const char *rpi_source_take_diagnostic(void *state)
{
        struct rpi_source *s = state;
        if (!s || !s->diag_pending)
                return NULL;
        s->diag_pending = false;
        return s->diag;
}

unsigned rpi_source_mailbox_mask(const void *state)
{
        const struct rpi_source *s = state;
        return s->mask;
}

bool rpi_source_uses_vcgencmd(const void *state)
{
        const struct rpi_source *s = state;
        return s->use_vcgencmd;
}

/* The plug-in's init: open the real transport, and say once why the firmware cannot
 * be read directly (init runs once, so this is the one place the source speaks). */
static int rpi_init(struct vigil_ctx *ctx, void **ret_state)
{
        int r = rpi_source_open(ctx, NULL, ret_state);
        if (r < 0)
                return r;
        const char *diag = rpi_source_diagnostic(*ret_state);
        if (diag)
                vlog(LOG_WARN, "Raspberry Pi firmware: %s", diag);
        return 0;
}

const struct vigil_source vigil_source_rpi = {
    .name = "rpi",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .init = rpi_init,
    .sample = rpi_source_sample,
    .fini = rpi_source_close,
};
