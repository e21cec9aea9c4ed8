/* /metrics: storage health families (the storage source, collect/storage.c):
 *   vigil_filesystem_size_bytes{fs="root",mountpoint="/",device="/dev/mmcblk0p2",fstype="ext4"}
 *   vigil_filesystem_avail_bytes{...}, vigil_filesystem_readonly{...} (0/1),
 *   vigil_filesystem_full_in_seconds{...} (only while free space falls),
 *   vigil_storage_kernel_errors_total{kind="mmc|ext4|f2fs|io"}
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
