/* SPDX-License-Identifier: Apache-2.0 */
/* /metrics: storage health families (the storage source, collect/storage.c):
 *   vigil_filesystem_size_bytes{fs="root",mountpoint="/",device="/dev/mmcblk0p2",fstype="ext4"}
 *   vigil_filesystem_avail_bytes{...}, vigil_filesystem_readonly{...} (0/1),
 *   vigil_filesystem_full_in_seconds{...} (only while free space falls),
 *   vigil_storage_kernel_errors_total{kind="mmc|ext4|f2fs|io"}
 *   vigil_sd_info{device="mmcblk0",name="SN64G",manfid="0x000003",...,type="SD"} 1,
 *   vigil_sd_life_time_estimate{device,type="a|b"}, vigil_sd_pre_eol_info{device},
 *   vigil_sd_written_bytes_total{device}, vigil_sd_write_bytes_per_day{device},
 *   vigil_self_written_bytes_total{device}, vigil_sd_self_write_ratio{device},
 *   vigil_sd_endurance_seconds{device}
 * The families, their names and help are the metric slots of fs_fields[] and
 * storage_fields[] (core/storage_values.c). The label names are node_exporter's
 * filesystem collector's, plus fs (root or log). */
#include <stddef.h>

#include "collect/storage_parse.h"
#include "core/frame_fields.h"
#include "metrics/metrics.h"
#include "metrics/metrics_render.h"

static const char *const fs_label[FS_COUNT] = {[FS_ROOT] = "root", [FS_LOG] = "log"};

/* The label list of file system i (no braces). */
static void fs_labels(struct strbuf *out, unsigned i, const struct fs_frame *fs)
{
        sb_printf(out, "fs=\"%s\"", fs_label[i]);
        if (fs->mount[0]) {
                sb_puts(out, ",mountpoint=\"");
                metrics_put_label_value(out, fs->mount);
                sb_puts(out, "\",device=\"");
                metrics_put_label_value(out, fs->device);
                sb_puts(out, "\",fstype=\"");
                metrics_put_label_value(out, fs->fstype);
                sb_putc(out, '"');
        }
}

void metrics_storage_errors(struct render *r, const struct frame *f, const char *const *bases)
{
        (void)bases;
        for (unsigned k = 0; k < STORAGE_ERR_COUNT; k++)
                metrics_sample(r, NULL, "kind", storage_err_names[k], f->storage.errors[k]);
}

void metrics_storage_bases(const struct frame *f, char (*labs)[METRICS_FS_LABELS_MAX],
                           const char **bases)
{
        for (unsigned i = 0; i < FS_COUNT; i++) {
                struct strbuf lb;
                sb_init_fixed(&lb, labs[i], sizeof(labs[i]));
                fs_labels(&lb, i, &f->storage.fs[i]);
                bases[i] = lb.overflow ? NULL : labs[i];
        }
}

void metrics_sd_info(struct render *r, const struct frame *f, const char *const *bases)
{
        const struct sd_frame *sd = &f->storage.sd;
        if (!bases[0])
                return;
        static const struct {
                const char *key;
                size_t off;
        } keys[] = {
            {"name", offsetof(struct sd_frame, name)},
            {"manfid", offsetof(struct sd_frame, manfid)},
            {"oemid", offsetof(struct sd_frame, oemid)},
            {"date", offsetof(struct sd_frame, date)},
            {"serial", offsetof(struct sd_frame, serial)},
        };
        char lab[METRICS_FS_LABELS_MAX];
        struct strbuf lb;
        sb_init_fixed(&lb, lab, sizeof(lab));
        sb_puts(&lb, bases[0]);
        for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
                sb_printf(&lb, ",%s=\"", keys[k].key);
                metrics_put_label_value(&lb, (const char *)sd + keys[k].off);
                sb_putc(&lb, '"');
        }
        if (!lb.overflow)
                metrics_sample(r, lab, "type", sd->type, 1);
}

void metrics_render_sd(struct render *r, const struct frame *f)
{
        const struct sd_frame *sd = &f->storage.sd;
        char lab[64];
        const char *bases[1] = {NULL};
        if (!sd->device[0])
                return;
        struct strbuf lb;
        sb_init_fixed(&lb, lab, sizeof(lab));
        sb_puts(&lb, "device=\"");
        metrics_put_label_value(&lb, sd->device);
        sb_putc(&lb, '"');
        if (lb.overflow)
                return;
        bases[0] = lab;
        metrics_render_table(r, f, sd_fields, sd_fields_count, sd, 0, 1, bases);
}
