/* /metrics: storage health families (the storage source, collect/storage.c):
 *   vigil_filesystem_size_bytes{fs="root",mountpoint="/",device="/dev/mmcblk0p2",fstype="ext4"}
 *   vigil_filesystem_avail_bytes{...}, vigil_filesystem_readonly{...} (0/1),
 *   vigil_filesystem_full_in_seconds{...} (only while free space falls),
 *   vigil_storage_kernel_errors_total{kind="mmc|ext4|f2fs|io"}
 * The label names are node_exporter's filesystem collector's, plus fs (root or log). */
#include <stddef.h>
#include <string.h>

#include "collect/storage_parse.h"
#include "sink/metrics.h"

static const char *const fs_label[FS_COUNT] = {[FS_ROOT] = "root", [FS_LOG] = "log"};

static const struct {
        const char *name;
        const char *type;
        const char *help;
        size_t off;
} fs_defs[] = {
    {"vigil_filesystem_size_bytes", "gauge", "Size of the file system (statvfs).",
     offsetof(struct fs_frame, size_bytes)},
    {"vigil_filesystem_avail_bytes", "gauge",
     "Free space of the file system available to a non-root writer (statvfs).",
     offsetof(struct fs_frame, avail_bytes)},
    {"vigil_filesystem_readonly", "gauge", "1 when the file system is mounted read-only.",
     offsetof(struct fs_frame, readonly)},
    {"vigil_filesystem_full_in_seconds", "gauge",
     "Time until the file system is full at the last hour's rate (only while it fills).",
     offsetof(struct fs_frame, full_in_s)},
};

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

void metrics_render_storage(struct strbuf *out, const struct storage_frame *s)
{
        for (size_t d = 0; d < sizeof(fs_defs) / sizeof(fs_defs[0]); d++) {
                bool head = false;
                for (unsigned i = 0; i < FS_COUNT; i++) {
                        double v;
                        memcpy(&v, (const char *)&s->fs[i] + fs_defs[d].off, sizeof(v));
                        if (!VAL_OK(v))
                                continue;
                        if (!head)
                                header(out, fs_defs[d].name, fs_defs[d].type, fs_defs[d].help);
                        head = true;
                        sb_puts(out, fs_defs[d].name);
                        fs_labels(out, i, &s->fs[i]);
                        value(out, v);
                }
        }
        bool head = false;
        for (unsigned k = 0; k < STORAGE_ERR_COUNT; k++) {
                if (!VAL_OK(s->errors[k]))
                        continue;
                if (!head)
                        header(out, "vigil_storage_kernel_errors_total", "counter",
                               "Kernel-log lines reporting storage errors, by subsystem, since "
                               "boot as far as the kernel's ring held them.");
                head = true;
                sb_printf(out, "vigil_storage_kernel_errors_total{kind=\"%s\"}",
                          storage_err_names[k]);
                value(out, s->errors[k]);
        }
}
