/* /metrics: storage health families (the storage source, collect/storage.c):
 *   vigil_filesystem_size_bytes{fs="root",mountpoint="/",device="/dev/mmcblk0p2",fstype="ext4"}
 *   vigil_filesystem_avail_bytes{...}, vigil_filesystem_readonly{...} (0/1),
 *   vigil_filesystem_full_in_seconds{...} (only while free space falls),
 *   vigil_storage_kernel_errors_total{kind="mmc|ext4|f2fs|io"}
 * The families, their names and help are the metric slots of core/fs_values.def and
 * core/storage_values.def. The label names are node_exporter's filesystem collector's,
 * plus fs (root or log). */
#include <stddef.h>
#include <string.h>

#include "collect/storage_parse.h"
#include "core/metric_defs.h"
#include "sink/metrics.h"
#include "sink/metrics_render.h"

static const char *const fs_label[FS_COUNT] = {[FS_ROOT] = "root", [FS_LOG] = "log"};

/* The file system's labels, escaped: fs, and where it is known mountpoint, device and
 * fstype. false when they do not fit cap. */
static bool fs_labels(char *out, size_t cap, unsigned i, const struct fs_frame *fs)
{
        struct strbuf sb;
        sb_init_fixed(&sb, out, cap);
        sb_printf(&sb, "fs=\"%s\"", fs_label[i]);
        if (fs->mount[0]) {
                sb_puts(&sb, ",mountpoint=\"");
                metrics_put_label_value(&sb, fs->mount);
                sb_puts(&sb, "\",device=\"");
                metrics_put_label_value(&sb, fs->device);
                sb_puts(&sb, "\",fstype=\"");
                metrics_put_label_value(&sb, fs->fstype);
                sb_putc(&sb, '"');
        }
        return !sb.overflow;
}

/* The code family of the storage table whose member is member (its name and help). */
static const struct metric_def *storage_code(const char *member)
{
        for (size_t d = 0; d < storage_metrics.n; d++)
                if (storage_metrics.rows[d].row == MR_CODE &&
                    strcmp(storage_metrics.rows[d].member, member) == 0)
                        return &storage_metrics.rows[d];
        return NULL;
}

void metrics_render_storage(struct render *r, const struct storage_frame *s)
{
        /* core/fs_values.def: one-series families, each series a file system. */
        for (size_t d = 0; d < fs_metrics.n; d++) {
                const struct metric_def *m = &fs_metrics.rows[d];
                if (m->row != MR_SERIES || !m->name)
                        continue;
                metrics_family(r, m->name, m->type, m->help);
                for (unsigned i = 0; i < FS_COUNT; i++) {
                        char labs[METRICS_KEY_MAX];
                        double v;
                        memcpy(&v, (const char *)&s->fs[i] + m->off, sizeof(v));
                        if (VAL_OK(v) && fs_labels(labs, sizeof(labs), i, &s->fs[i]))
                                metrics_sample(r, labs, NULL, NULL, v * m->scale);
                }
        }
        const struct metric_def *errs = storage_code("errors");
        if (!errs)
                return;
        metrics_family(r, errs->name, errs->type, errs->help);
        for (unsigned k = 0; k < STORAGE_ERR_COUNT; k++)
                metrics_sample(r, NULL, "kind", storage_err_names[k], s->errors[k]);
}
