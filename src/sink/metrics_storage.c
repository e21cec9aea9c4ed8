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

static const char *const fs_label[FS_COUNT] = {[FS_ROOT] = "root", [FS_LOG] = "log"};

static void header(struct strbuf *out, const char *name, const char *type, const char *help)
{
        sb_printf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void value(struct strbuf *out, double v)
{
        char num[40];
        size_t n = metrics_fmt_value(num, sizeof(num), v);
        sb_putc(out, ' ');
        sb_put(out, num, n);
        sb_putc(out, '\n');
}

static void fs_labels(struct strbuf *out, unsigned i, const struct fs_frame *fs)
{
        sb_printf(out, "{fs=\"%s\"", fs_label[i]);
        if (fs->mount[0]) {
                sb_puts(out, ",mountpoint=\"");
                metrics_put_label_value(out, fs->mount);
                sb_puts(out, "\",device=\"");
                metrics_put_label_value(out, fs->device);
                sb_puts(out, "\",fstype=\"");
                metrics_put_label_value(out, fs->fstype);
                sb_putc(out, '"');
        }
        sb_putc(out, '}');
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

void metrics_render_storage(struct strbuf *out, const struct storage_frame *s)
{
        /* core/fs_values.def: one-series families, each series a file system. */
        for (size_t d = 0; d < fs_metrics.n; d++) {
                const struct metric_def *m = &fs_metrics.rows[d];
                bool head = false;
                for (unsigned i = 0; i < FS_COUNT && m->row == MR_SERIES && m->name; i++) {
                        double v;
                        memcpy(&v, (const char *)&s->fs[i] + m->off, sizeof(v));
                        if (!VAL_OK(v))
                                continue;
                        if (!head)
                                header(out, m->name, m->type, m->help);
                        head = true;
                        sb_puts(out, m->name);
                        fs_labels(out, i, &s->fs[i]);
                        value(out, v * m->scale);
                }
        }
        const struct metric_def *errs = storage_code("errors");
        bool head = false;
        for (unsigned k = 0; errs && k < STORAGE_ERR_COUNT; k++) {
                if (!VAL_OK(s->errors[k]))
                        continue;
                if (!head)
                        header(out, errs->name, errs->type, errs->help);
                head = true;
                sb_printf(out, "%s{kind=\"%s\"}", errs->name, storage_err_names[k]);
                value(out, s->errors[k]);
        }
}
