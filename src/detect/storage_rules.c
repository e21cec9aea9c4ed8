/* SPDX-License-Identifier: Apache-2.0 */
/* Storage health rules. See storage_rules.h. Their events.log lines:
 *   type=STORAGE state=read-only fs=root mount=/ device=/dev/mmcblk0p2 fstype=ext4
 *   type=STORAGE_ERRORS new=2 total=5 last="EXT4-fs error (device mmcblk0p2): ..."
 *   type=STORAGE_FILL state=filling fs=log mount=/var/log avail=812.0MB full_in=5.2h */
#include "detect/storage_rules.h"

#include <stdbool.h>

#include "core/event_kinds.h"
#include "util/hot.h"

static const char *const fs_names[FS_COUNT] = {[FS_ROOT] = "root", [FS_LOG] = "log"};

VIGIL_HOT int storage_eval_readonly(const struct rpi_rule *r, const struct frame *f,
                                    const struct rpi_thresholds *th, enum rpi_level prev)
{
        (void)r;
        (void)th;
        (void)prev;
        bool known = false;
        for (unsigned i = 0; i < FS_COUNT; i++) {
                double ro = f->storage.fs[i].readonly;
                if (VAL_OK(ro) && ro > 0)
                        return RPI_LEVEL_WARN;
                known |= VAL_OK(ro);
        }
        return known ? RPI_LEVEL_OK : -1;
}

static void put_fs(const struct fs_frame *fs, unsigned i, struct strbuf *sb)
{
        sb_printf(sb, " fs=%s", fs_names[i]);
        if (fs->mount[0])
                sb_printf(sb, " mount=%s device=%s fstype=%s", fs->mount, fs->device, fs->fstype);
}

void storage_desc_readonly(const struct rpi_rule *r, const struct frame *f,
                           const struct rpi_thresholds *th, enum rpi_level lvl, struct strbuf *sb)
{
        (void)r;
        (void)th;
        event_begin(sb, EV_STORAGE);
        sb_printf(sb, " state=%s", lvl ? "read-only" : "read-write");
        for (unsigned i = 0; i < FS_COUNT; i++) {
                const struct fs_frame *fs = &f->storage.fs[i];
                if (VAL_OK(fs->readonly) && (fs->readonly > 0) == (lvl != RPI_LEVEL_OK)) {
                        put_fs(fs, i, sb);
                        break;
                }
        }
}

static double total_errors(const struct frame *f)
{
        double t = 0;
        for (unsigned k = 0; k < STORAGE_KINDS; k++)
                t += f->storage.errors[k];
        return t;
}

VIGIL_HOT int storage_eval_errors(const struct rpi_rule *r, const struct frame *f,
                                  const struct rpi_thresholds *th, enum rpi_level prev)
{
        (void)r;
        (void)th;
        (void)prev;
        double n = f->storage.errors_new;
        if (!VAL_OK(n))
                return -1;
        return n > 0 ? RPI_LEVEL_WARN : RPI_LEVEL_OK;
}

void storage_desc_errors(const struct rpi_rule *r, const struct frame *f,
                         const struct rpi_thresholds *th, enum rpi_level lvl, struct strbuf *sb)
{
        (void)r;
        (void)th;
        if (lvl == RPI_LEVEL_OK) {
                event_begin(sb, EV_STORAGE_ERRORS);
                sb_printf(sb, " state=quiet total=%.0f", total_errors(f));
                return;
        }
        event_begin(sb, EV_STORAGE_ERRORS);
        sb_printf(sb, " new=%.0f total=%.0f last=\"", f->storage.errors_new, total_errors(f));
        for (const char *p = f->storage.last_error; *p; p++)
                sb_putc(sb, *p == '"' ? '\'' : *p);
        sb_putc(sb, '"');
}

VIGIL_HOT int storage_eval_filling(const struct rpi_rule *r, const struct frame *f,
                                   const struct rpi_thresholds *th, enum rpi_level prev)
{
        (void)r;
        (void)th;
        bool known = false;
        double limit = prev == RPI_LEVEL_OK ? STORAGE_FILL_WARN_S : STORAGE_FILL_CLEAR_S;
        for (unsigned i = 0; i < FS_COUNT; i++) {
                const struct fs_frame *fs = &f->storage.fs[i];
                if (!VAL_OK(fs->avail_bytes))
                        continue;
                known = true;
                if (VAL_OK(fs->full_in_s) && fs->full_in_s < limit)
                        return RPI_LEVEL_WARN;
        }
        return known ? RPI_LEVEL_OK : -1;
}

void storage_desc_filling(const struct rpi_rule *r, const struct frame *f,
                          const struct rpi_thresholds *th, enum rpi_level lvl, struct strbuf *sb)
{
        (void)r;
        (void)th;
        event_begin(sb, EV_STORAGE_FILL);
        sb_printf(sb, " state=%s", lvl ? "filling" : "ok");
        unsigned best = FS_COUNT;
        for (unsigned i = 0; i < FS_COUNT; i++) {
                const struct fs_frame *fs = &f->storage.fs[i];
                if (VAL_OK(fs->full_in_s) &&
                    (best == FS_COUNT || fs->full_in_s < f->storage.fs[best].full_in_s))
                        best = i;
        }
        if (best == FS_COUNT)
                return;
        const struct fs_frame *fs = &f->storage.fs[best];
        put_fs(fs, best, sb);
        sb_printf(sb, " avail=%.1fMB full_in=%.1fh", fs->avail_bytes / 1048576.0,
                  fs->full_in_s / 3600.0);
}

void storage_describe_incident(const struct frame *f, bool readonly, bool errors, struct strbuf *sb)
{
        const char *sep = "";
        for (unsigned i = 0; readonly && i < FS_COUNT; i++) {
                const struct fs_frame *fs = &f->storage.fs[i];
                if (!VAL_OK(fs->readonly) || fs->readonly <= 0)
                        continue;
                sb_printf(sb, "%sread-only %s file system %s (%s)", sep, fs_names[i],
                          fs->device[0] ? fs->device : "?", fs->fstype[0] ? fs->fstype : "?");
                sep = "; ";
                break;
        }
        if (errors)
                sb_printf(sb, "%s%.0f new storage error lines in the kernel log: %s", sep,
                          f->storage.errors_new, f->storage.last_error);
}
