/* SPDX-License-Identifier: Apache-2.0 */
/* The Raspberry Pi source. See rpi.h for where each value comes from.
 *
 *   47236                      (ROOT/sys/class/thermal/thermal_zone0/temp, m°C)
 *   gencmd "get_throttled" throttled=0x50000   (ROOT/dev/vcio_gencmd as a fixture) */
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
#include "util/attr.h"
#include "util/parse.h"
#include "util/pfile.h"
#include "util/strbuf.h"
#include "util/hot.h"

#define SYSFS_NUM_BUF    64
#define VCGENCMD_GIVE_UP 3 /* samples in a row with no answer at all */
/* A core rail outside this is not a reading (mbox_voltage_v() uses the same bounds). */
#define SYSFS_VOLT_MIN_MV 200.0
#define SYSFS_VOLT_MAX_MV 2500.0

/* Device nodes under ROOT/dev. vcgencmd opens vcio_gencmd first, then vcio, both
 * read-only (raspberrypi/utils vcgencmd/vcgencmd.c mbox_open(), commit d0397c6);
 * vcio_gencmd passes only the gencmd tag (raspberrypi/linux vcio.c vcio_gencmd_tags). */
#define NODE_GENCMD "/dev/vcio_gencmd"
#define NODE_VCIO   "/dev/vcio"

/* One open vcio node. */
struct rpi_chan {
        const struct rpi_transport_ops *ops;
        void *priv; /* NULL while closed */
        char path[4096];
};

struct rpi_source {
        char root[1024];
        char model[64];
        int generation;
        const struct rpi_transport_ops *forced_ops; /* tests: this transport for every node */
        struct rpi_chan gencmd;                     /* text commands: vcio_gencmd, else vcio */
        struct rpi_chan tags;                       /* property tags: vcio only */
        bool gencmd_dead;        /* the firmware or node refuses gencmd: stop asking */
        bool tags_dead;          /* vcio could not be opened at start */
        unsigned mask;           /* values asked of the property tags */
        bool use_vcgencmd;       /* no node could be opened at start */
        bool vcgencmd_missing;   /* vcgencmd cannot be run or never answers: stop trying */
        unsigned vcgencmd_fails; /* samples in a row in which vcgencmd answered nothing */
        const char *vcgencmd;
        bool diag_pending;
        char diag[480];
        struct pfile thermal, uv_alarm, volt_in, max_freq, gpu_stats;
        unsigned nv3d;
        struct v3d_queue_stat v3d_prev[VIGIL_V3D_QUEUES];
};

static bool is_perm(int err)
{
        return err == -EACCES || err == -EPERM;
}

/* Why no firmware node could be opened, naming the device and what grants it. */
static void set_diagnostic(struct rpi_source *s, int gencmd_err, int vcio_err)
{
        struct strbuf sb;
        char gpath[4096], vpath[4096];
        sb_init_fixed(&sb, s->diag, sizeof(s->diag));
        path_join(gpath, sizeof(gpath), s->root, NODE_GENCMD);
        path_join(vpath, sizeof(vpath), s->root, NODE_VCIO);
        if (is_perm(gencmd_err))
                sb_printf(&sb,
                          "cannot open %s: permission denied; current Raspberry Pi OS gives it to "
                          "group 'video' (udev rule 10-vc.rules): run vigil with group video (the "
                          "shipped unit has SupplementaryGroups=video; by hand: usermod -aG video "
                          "USER); until then values come from sysfs and vcgencmd",
                          gpath);
        else if (gencmd_err == -ENOENT && is_perm(vcio_err))
                sb_printf(&sb,
                          "cannot open %s: permission denied (this kernel has no %s); on this "
                          "older Raspberry Pi OS group 'video' has %s: run vigil with group video "
                          "(usermod -aG video USER); until then values come from sysfs and "
                          "vcgencmd",
                          vpath, NODE_GENCMD, NODE_VCIO);
        else
                sb_printf(&sb,
                          "cannot open %s (%s) nor %s (%s); values come from sysfs and vcgencmd "
                          "instead",
                          gpath, strerror(-gencmd_err), vpath, strerror(-vcio_err));
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
        pfile_open(&s->max_freq, s->root, "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq",
                   SYSFS_NUM_BUF);
        if (rpi_find_gpu_stats(s->root, path, sizeof(path)) == 0)
                pfile_open(&s->gpu_stats, s->root, path, V3D_STATS_MAX_BYTES);
}

static void chan_close(struct rpi_chan *c)
{
        if (c->priv)
                c->ops->close(c->priv);
        c->priv = NULL;
}

static void close_all(struct rpi_source *s)
{
        chan_close(&s->gencmd);
        chan_close(&s->tags);
        pfile_close(&s->thermal);
        pfile_close(&s->uv_alarm);
        pfile_close(&s->volt_in);
        pfile_close(&s->max_freq);
        pfile_close(&s->gpu_stats);
}

/* Open ROOT/node on c. 0 or -errno. */
static int chan_open(struct rpi_source *s, struct rpi_chan *c, const char *node)
{
        int r = path_join(c->path, sizeof(c->path), s->root, node);
        if (r == 0) {
                c->ops = s->forced_ops ? s->forced_ops : rpi_transport_pick(c->path);
                r = c->ops->open(c->path, &c->priv);
        }
        if (r < 0)
                c->priv = NULL;
        return r;
}

/* Reopen a channel closed after a transport failure (same node as before). */
static int chan_reopen(struct rpi_chan *c)
{
        if (c->priv)
                return 0;
        int r = c->ops->open(c->path, &c->priv);
        if (r < 0)
                c->priv = NULL;
        return r;
}

/* Pi 5 and later answer only some tags: ask once, keep the ones answered. */
static void probe_tags(struct rpi_source *s)
{
        double vals[RPI_V_COUNT];
        unsigned answered;
        if (rpi_fw_query(s->tags.ops, s->tags.priv, RPI_V_ALL, vals, &answered) == 0)
                s->mask = answered;
}

static void open_firmware(struct rpi_source *s)
{
        int gerr = chan_open(s, &s->gencmd, NODE_GENCMD);
        int verr = 0;
        if (gerr < 0)
                verr = chan_open(s, &s->gencmd, NODE_VCIO);
        int terr = chan_open(s, &s->tags, NODE_VCIO);
        s->tags_dead = terr < 0;
        if (gerr < 0 && verr < 0) {
                s->gencmd_dead = true;
                s->use_vcgencmd = s->tags_dead;
                if (s->use_vcgencmd)
                        set_diagnostic(s, gerr, verr);
        }
        if (!s->tags_dead && s->generation >= 5)
                probe_tags(s);
}

int rpi_source_open(struct vigil_ctx *ctx, const struct rpi_transport_ops *ops, void **ret_state)
{
        struct rpi_source *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        copy_bounded(s->root, sizeof(s->root), ctx->opt->root, strlen(ctx->opt->root));
        s->thermal.fd = s->uv_alarm.fd = s->volt_in.fd = -1;
        s->max_freq.fd = s->gpu_stats.fd = -1;
        int r = rpi_read_model(s->root, s->model, sizeof(s->model));
        if (r <= 0) {
                free(s);
                return -ENODEV;
        }
        s->generation = rpi_model_generation(s->model);
        s->vcgencmd = "vcgencmd";
        s->mask = RPI_V_ALL;
        s->forced_ops = ops;
        open_firmware(s);
        open_sysfs(s);
        *ret_state = s;
        return 0;
}

/* A whole-number sysfs attribute, with one pread: sysfs makes an attribute whole at
 * the first read (fs/sysfs/file.c, sysfs_kf_seq_show calls show() once into a
 * PAGE_SIZE buffer), so a second read would only find its end. */
VIGIL_HOT static int read_num(struct pfile *f, double *ret)
{
        int64_t v;
        if (!pfile_is_open(f) || pfile_read_once(f) < 0 || f->truncated ||
            parse_i64(f->buf, f->len, &v) < 0)
                return -ENODATA;
        *ret = (double)v;
        return 0;
}

/* sysfs for temperature, core voltage and the ARM's maximum when still missing. Never
 * the ARM clock: scaling_cur_freq is the kernel's request, not a measurement (it is
 * arm_cur_mhz_cfg, from the cpufreq source). The throttled word has no sysfs form. */
VIGIL_HOT static void fill_sysfs(struct rpi_source *s, double *vals, enum rpi_origin *org)
{
        double x;
        if (isnan(vals[RPI_V_TEMP]) && read_num(&s->thermal, &x) == 0 && x >= 0) {
                vals[RPI_V_TEMP] = x / 1000.0;
                org[RPI_V_TEMP] = RPI_SRC_SYSFS;
        }
        /* in0_input in mV (mainline kernels); 0 or an absurd value is not a voltage. */
        if (isnan(vals[RPI_V_VOLT]) && read_num(&s->volt_in, &x) == 0 && x >= SYSFS_VOLT_MIN_MV &&
            x <= SYSFS_VOLT_MAX_MV) {
                vals[RPI_V_VOLT] = x / 1000.0;
                org[RPI_V_VOLT] = RPI_SRC_SYSFS;
        }
        if (isnan(vals[RPI_V_ARM_MAX]) && read_num(&s->max_freq, &x) == 0 && x > 0) {
                vals[RPI_V_ARM_MAX] = x * 1000.0;
                org[RPI_V_ARM_MAX] = RPI_SRC_SYSFS;
        }
}

/* The rpi_volt alarm: the under-voltage bit as the driver last read it (0/1). */
static double read_alarm(struct rpi_source *s)
{
        double x;
        if (read_num(&s->uv_alarm, &x) < 0 || x < 0)
                return VAL_MISSING;
        return x != 0 ? 1.0 : 0.0;
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

/* The reference's commands through gencmd, one request each. Returns 0, or the
 * transport error that closed the node (reopened next sample); *ret_reachable says
 * whether the firmware answered any command with text. A firmware that does not know gencmd
 * (unanswered) or a node that refuses it (EPERM) is not asked again. */
static int fill_gencmd(struct rpi_source *s, double *vals, enum rpi_origin *org,
                       bool *ret_reachable)
{
        *ret_reachable = false;
        if (s->gencmd_dead)
                return 0;
        int r = chan_reopen(&s->gencmd);
        if (r < 0)
                return r;
        for (unsigned v = 0; v < RPI_V_COUNT; v++) {
                double x;
                if (!rpi_fw_command((enum rpi_value)v))
                        continue;
                r = rpi_fw_gencmd(s->gencmd.ops, s->gencmd.priv, (enum rpi_value)v, &x);
                if (r == 0) {
                        vals[v] = x;
                        org[v] = RPI_SRC_GENCMD;
                }
                /* An answer that is an error or does not parse: gencmd is there, this
                 * value is not. EINVAL: the firmware failed the request; try the rest. */
                if (r == 0 || r == -EPROTO || r == -EBADMSG) {
                        *ret_reachable = true;
                        continue;
                }
                if (r == -EINVAL)
                        continue;
                if (r == -ENODATA || r == -EPERM) {
                        s->gencmd_dead = true;
                        chan_close(&s->gencmd);
                        return 0;
                }
                chan_close(&s->gencmd);
                return r;
        }
        return 0;
}

/* Property tags for what is still missing: the ARM's maximum (no gencmd gives it),
 * and, when gencmd did not answer, the rest, the throttled word included. */
static int fill_tags(struct rpi_source *s, double *vals, enum rpi_origin *org, bool gencmd_ok)
{
        if (s->tags_dead)
                return 0;
        unsigned want = 0;
        for (unsigned v = 0; v < RPI_V_COUNT; v++)
                if (isnan(vals[v]))
                        want |= RPI_V_BIT(v);
        /* Never by tag while gencmd answers: the kernel's rpi_volt driver clears the
         * sticky bits through the tag every 2 s (FACTS.md), and a request that clears
         * nothing still shows a since-boot history that is not one. */
        if (gencmd_ok)
                want &= ~RPI_V_BIT(RPI_V_THROTTLED);
        want &= s->mask;
        if (!want)
                return 0;
        int r = chan_reopen(&s->tags);
        if (r < 0)
                return r;
        double got_vals[RPI_V_COUNT];
        unsigned got = 0;
        r = rpi_fw_query(s->tags.ops, s->tags.priv, want, got_vals, &got);
        for (unsigned v = 0; v < RPI_V_COUNT; v++) {
                if (!(got & RPI_V_BIT(v)))
                        continue;
                vals[v] = got_vals[v];
                org[v] = RPI_SRC_MAILBOX;
        }
        /* EINVAL is the firmware failing the request, not a broken node. */
        if (r < 0 && r != -EINVAL && r != -EPROTO)
                chan_close(&s->tags);
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
        r->arm_max_src = org[RPI_V_ARM_MAX];
}

VIGIL_HOT int rpi_source_sample(void *state, struct vigil_ctx *ctx, const struct tick *t)
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
                bool gencmd_ok;
                ret = fill_gencmd(s, vals, org, &gencmd_ok);
                int tr = fill_tags(s, vals, org, gencmd_ok);
                if (ret == 0)
                        ret = tr;
                fill_sysfs(s, vals, org);
        } else {
                fill_sysfs(s, vals, org);
                fill_vcgencmd(s, vals, org);
        }
        store(r, vals, org);
        r->undervolt_alarm = read_alarm(s);
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

const char *rpi_source_gencmd_node(const void *state)
{
        const struct rpi_source *s = state;
        return s->gencmd_dead ? NULL : s->gencmd.path;
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
