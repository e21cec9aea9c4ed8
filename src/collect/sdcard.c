/* SPDX-License-Identifier: Apache-2.0 */
/* Source: the SD card or eMMC of a Raspberry Pi, on the host clock: the first MMC
 * block device, ROOT/sys/block/mmcblkN (a Pi boots from mmcblk0, its SD slot or a
 * CM4/CM5's eMMC; the mmcblkNbootM and rpmb partitions are other names). Reads
 *
 *   its CID identity, once at start: ROOT/sys/block/mmcblk0/device/{name,manfid,oemid,
 *     date,serial,type} (drivers/mmc/core/{mmc,sd}.c MMC_DEV_ATTR, bus.c type_show)
 *   its eMMC wear, at start and hourly: device/life_time, device/pre_eol_info
 *     (eMMC 5.0+ only: a CM4 or CM5; an SD card has neither)
 *   the sectors written since boot, every sample: ROOT/proc/diskstats
 *   vigil's own writes, every sample: ROOT/proc/self/io write_bytes, and their share
 *     of the card's since the first sample
 *
 * (formats in collect/sdcard_parse.c). Both /proc files are kept open. /proc/self/io is
 * one show() (fs/proc/base.c proc_single_show()), whole in one pread; /proc/diskstats
 * is a record per block device, and a seq_file read stops where its page fills, so a
 * short read is not its end: it is read until a read returns nothing. The daily rate is the bytes written since boot
 * over the uptime; with --sd-endurance-tbw the days until the card's rated endurance is
 * written at that rate (of the eMMC's life time left, when it reports one).
 *
 * Frame fields: storage.sd. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/sdcard_parse.h"
#include "collect/sysfs_scan.h"
#include "core/vigil.h"
#include "util/clock.h"
#include "util/attr.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/pfile.h"

#define WEAR_EVERY_NS (3600 * NSEC_PER_SEC)
#define PROC_MAX      (64 * 1024)
#define SECTOR_BYTES  512.0
#define TB            1e12

enum sd_file { SF_LIFE_TIME, SF_PRE_EOL, SF_DISKSTATS, SF_SELF_IO, SF_COUNT };

struct sd_state {
        char root[4096];
        char dev[16];       /* "mmcblk0" */
        struct sd_frame id; /* the identity strings, read at start */
        double life_a, life_b, pre_eol;
        int64_t wear_ns; /* 0: never */
        bool emmc;       /* life_time exists */
        struct pfile diskstats, self_io;
        unsigned warned;        /* bit per enum sd_file */
        double written0, self0; /* at the first sample: the share counts from there */
        double endurance_tbw;
};

static void said_once(struct sd_state *s, enum sd_file f, const char *what, int err)
{
        if (s->warned & (1u << f))
                return;
        s->warned |= 1u << f;
        vlog(LOG_WARN, "sd card: %s: %s", what, err ? strerror(-err) : "unexpected contents");
}

/* device/NAME of the card, trimmed, into out; "" when absent. */
static void read_attr(struct sd_state *s, const char *attr, char *out, size_t cap)
{
        char rel[96], buf[64];
        snprintf(rel, sizeof(rel), "/sys/block/%s/device/%s", s->dev, attr);
        out[0] = '\0';
        if (read_line_at(s->root, rel, buf, sizeof(buf)) > 0)
                copy_bounded(out, cap, buf, strlen(buf));
}

static bool pick_device(struct sd_state *s)
{
        unsigned idx[1];
        if (sysfs_scan_indices(s->root, "/sys/block", "mmcblk", "", idx, 1) < 1)
                return false;
        snprintf(s->dev, sizeof(s->dev), "mmcblk%u", idx[0]);
        return true;
}

static int sd_init(struct vigil_ctx *ctx, void **ret_state)
{
        struct sd_state *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        const char *root = ctx->opt->root;
        snprintf(s->root, sizeof(s->root), "%s", root ? root : "");
        s->diskstats.fd = s->self_io.fd = -1;
        s->endurance_tbw = ctx->opt->sd_endurance_tbw;
        if (!pick_device(s)) {
                free(s);
                return -ENODEV;
        }
        struct sd_frame *id = &s->id;
        read_attr(s, "name", id->name, sizeof(id->name));
        read_attr(s, "manfid", id->manfid, sizeof(id->manfid));
        read_attr(s, "oemid", id->oemid, sizeof(id->oemid));
        read_attr(s, "date", id->date, sizeof(id->date));
        read_attr(s, "serial", id->serial, sizeof(id->serial));
        read_attr(s, "type", id->type, sizeof(id->type));
        char rel[96];
        snprintf(rel, sizeof(rel), "/sys/block/%s/device/life_time", s->dev);
        char buf[64];
        s->emmc = read_line_at(s->root, rel, buf, sizeof(buf)) >= 0;
        s->life_a = s->life_b = s->pre_eol = NAN;
        s->written0 = s->self0 = NAN;
        int r = pfile_open(&s->diskstats, root, "/proc/diskstats", PROC_MAX);
        if (r < 0)
                said_once(s, SF_DISKSTATS, "cannot open /proc/diskstats", r);
        r = pfile_open(&s->self_io, root, "/proc/self/io", 4096);
        if (r < 0)
                said_once(s, SF_SELF_IO, "cannot open /proc/self/io", r);
        *ret_state = s;
        return 0;
}

static void read_wear(struct sd_state *s)
{
        char rel[96], buf[64];
        snprintf(rel, sizeof(rel), "/sys/block/%s/device/life_time", s->dev);
        int n = read_line_at(s->root, rel, buf, sizeof(buf));
        s->life_a = s->life_b = s->pre_eol = NAN;
        if (n < 0 || sd_parse_life_time(buf, &s->life_a, &s->life_b) < 0)
                said_once(s, SF_LIFE_TIME, rel, n < 0 ? n : 0);
        snprintf(rel, sizeof(rel), "/sys/block/%s/device/pre_eol_info", s->dev);
        n = read_line_at(s->root, rel, buf, sizeof(buf));
        if (n < 0 || sd_parse_pre_eol(buf, &s->pre_eol) < 0)
                said_once(s, SF_PRE_EOL, rel, n < 0 ? n : 0);
}

/* The share of the life time left by the eMMC's own estimate (the worse of types A
 * and B, by the upper end of its 10% band), 1 when it gives none. */
static double life_left(const struct sd_state *s)
{
        double used = NAN;
        if (VAL_OK(s->life_a) && s->life_a >= 1 && s->life_a <= 11)
                used = s->life_a;
        if (VAL_OK(s->life_b) && s->life_b >= 1 && s->life_b <= 11 && !(used >= s->life_b))
                used = s->life_b;
        if (!VAL_OK(used))
                return 1;
        double left = 1 - used / 10;
        return left > 0 ? left : 0;
}

/* vigil's share of what the card took since the first sample: both counters' growth,
 * missing until the card took something. */
static void self_share(struct sd_state *s, struct sd_frame *out)
{
        if (!VAL_OK(out->written_bytes) || !VAL_OK(out->self_written_bytes))
                return;
        if (!VAL_OK(s->written0)) {
                s->written0 = out->written_bytes;
                s->self0 = out->self_written_bytes;
        }
        double card = out->written_bytes - s->written0;
        if (card > 0)
                out->self_write_ratio = (out->self_written_bytes - s->self0) / card;
}

static int sd_sample(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct sd_state *s = state;
        struct sd_frame *out = &ctx->frame->storage.sd;
        /* storage_frame_clear() (the storage source, just before) left it missing. */
        *out = s->id;
        snprintf(out->device, sizeof(out->device), "%s", s->dev);
        out->life_time_a = out->life_time_b = out->pre_eol = NAN;
        out->written_bytes = out->write_bytes_per_day = out->self_written_bytes = NAN;
        out->self_write_ratio = NAN;
        out->endurance_s = NAN;
        if (s->emmc && (!s->wear_ns || t->mono_ns - s->wear_ns >= WEAR_EVERY_NS)) {
                s->wear_ns = t->mono_ns;
                read_wear(s);
        }
        out->life_time_a = s->life_a;
        out->life_time_b = s->life_b;
        out->pre_eol = s->pre_eol;
        uint64_t v;
        int n;
        if (pfile_is_open(&s->diskstats) && (n = pfile_read(&s->diskstats)) > 0) {
                int r = sd_parse_diskstats_written(s->diskstats.buf, (size_t)n, s->dev, &v);
                if (r == 0)
                        out->written_bytes = (double)v * SECTOR_BYTES;
                else
                        said_once(s, SF_DISKSTATS, "no usable line in /proc/diskstats", r);
        }
        if (pfile_is_open(&s->self_io) && (n = pfile_read_once(&s->self_io)) > 0) {
                if (sd_parse_io_write_bytes(s->self_io.buf, (size_t)n, &v) == 0)
                        out->self_written_bytes = (double)v;
                else
                        said_once(s, SF_SELF_IO, "no write_bytes in /proc/self/io", 0);
        }
        self_share(s, out);
        double up = ctx->frame->host.uptime_s;
        if (VAL_OK(out->written_bytes) && VAL_OK(up) && up > 0)
                out->write_bytes_per_day = out->written_bytes / up * 86400;
        double rate = out->write_bytes_per_day;
        if (s->endurance_tbw > 0 && VAL_OK(rate) && rate > 0)
                out->endurance_s = s->endurance_tbw * TB * life_left(s) / rate * 86400;
        return 0;
}

static void sd_fini(void *state)
{
        struct sd_state *s = state;
        if (!s)
                return;
        pfile_close(&s->diskstats);
        pfile_close(&s->self_io);
        free(s);
}

const struct vigil_source vigil_source_sdcard = {
    .name = "sdcard",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .init = sd_init,
    .sample = sd_sample,
    .fini = sd_fini,
};
