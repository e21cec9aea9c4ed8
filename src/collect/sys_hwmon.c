/* SPDX-License-Identifier: Apache-2.0 */
/* hwmon temperatures (see sys_hwmon.h).
 *
 *   /sys/class/hwmon/hwmon3/name         coretemp
 *   /sys/class/hwmon/hwmon3/temp1_label  Package id 0
 *   /sys/class/hwmon/hwmon3/temp1_input  52000
 *
 * Each tempK_input is kept open and re-read with one pread per sample. */
#include "collect/sys_hwmon.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/host_temp.h"
#include "collect/sysfs_scan.h"
#include "core/vigil.h"
#include "util/attr.h"
#include "util/parse.h"
#include "util/pfile.h"
#include "util/retry.h"
#include "util/hot.h"

#define HWMON_DIR       "/sys/class/hwmon"
#define HWMON_MAX_CHIPS 256
#define HWMON_MAX_TEMPS 64 /* per chip */

struct hwmon_sensor {
        int fd; /* tempK_input, -1 when it could not be opened */
        char chip[32];
        char sensor[32];
};

struct hwmon_state {
        unsigned n;
        struct hwmon_sensor s[VIGIL_MAX_TEMPS];
        bool rescan; /* a device went away, or nothing was found */
        struct retry_gate gate;
};

static void hwmon_close_all(struct hwmon_state *st)
{
        for (unsigned i = 0; i < st->n; i++) {
                if (st->s[i].fd >= 0)
                        close(st->s[i].fd);
        }
        st->n = 0;
}

/* Add chip hwmonN's temperature sensors (path: its directory under the root). */
static void hwmon_add_chip(struct hwmon_state *st, const char *root, const char *path,
                           const char *chip, size_t chip_len)
{
        unsigned idx[HWMON_MAX_TEMPS];
        int n = sysfs_scan_indices(root, path, "temp", "_input", idx, HWMON_MAX_TEMPS);
        for (int k = 0; k < n && st->n < VIGIL_MAX_TEMPS; k++) {
                char file[512], label[64];
                struct hwmon_sensor *s = &st->s[st->n];
                int r = snprintf(file, sizeof(file), "%s/temp%u_label", path, idx[k]);
                int len = r > 0 && (size_t)r < sizeof(file)
                              ? read_line_at(root, file, label, sizeof(label))
                              : -ENAMETOOLONG;
                if (len <= 0)
                        len = snprintf(label, sizeof(label), "temp%u", idx[k]);
                r = snprintf(file, sizeof(file), "%s/temp%u_input", path, idx[k]);
                if (r <= 0 || (size_t)r >= sizeof(file))
                        continue;
                s->fd = attr_open(root, file);
                if (s->fd < 0)
                        s->fd = -1;
                copy_bounded(s->chip, sizeof(s->chip), chip, chip_len);
                copy_bounded(s->sensor, sizeof(s->sensor), label, (size_t)len);
                st->n++;
        }
}

/* The chip label of hwmonN named name: the name itself, or, when another chip has the
 * same name (two NVMe drives, two coretemp sockets), "name_DEVICE" after the basename of
 * its device link (nvme_nvme0, nvme_nvme1: stable across boots, as node_exporter tells
 * chips apart), else "name_hwmonN". Two series with one label set would be an invalid
 * exposition on /metrics. */
static void hwmon_chip_label(const char *root, const char *path, unsigned hwmon, const char *name,
                             size_t len, bool shared, char *out, size_t cap)
{
        char link[1200], rel[200], target[256];
        const char *dev = NULL;
        copy_bounded(out, cap, name, len);
        if (!shared)
                return;
        snprintf(rel, sizeof(rel), "%s/device", path);
        ssize_t n = path_join(link, sizeof(link), root, rel) < 0
                        ? -1
                        : readlink(link, target, sizeof(target) - 1);
        if (n > 0) {
                target[n] = '\0';
                const char *slash = strrchr(target, '/');
                dev = slash ? slash + 1 : target;
        }
        int keep = len > 15 ? 15 : (int)len; /* chip labels are 31 bytes at most */
        if (dev && dev[0])
                snprintf(out, cap, "%.*s_%.15s", keep, name, dev);
        else
                snprintf(out, cap, "%.*s_hwmon%u", keep, name, hwmon % 100000);
}

static void hwmon_scan(struct hwmon_state *st, const char *root)
{
        unsigned idx[HWMON_MAX_CHIPS];
        char names[HWMON_MAX_CHIPS][32];
        int lens[HWMON_MAX_CHIPS];
        hwmon_close_all(st);
        st->rescan = false;
        int n = sysfs_scan_indices(root, HWMON_DIR, "hwmon", "", idx, HWMON_MAX_CHIPS);
        for (int i = 0; i < n; i++) {
                char file[160];
                snprintf(file, sizeof(file), HWMON_DIR "/hwmon%u/name", idx[i]);
                lens[i] = read_line_at(root, file, names[i], sizeof(names[i]));
        }
        for (int i = 0; i < n && st->n < VIGIL_MAX_TEMPS; i++) {
                char path[128], chip[32];
                bool shared = false;
                if (lens[i] <= 0)
                        continue;
                for (int j = 0; j < n && !shared; j++)
                        shared = j != i && lens[j] == lens[i] && !strcmp(names[j], names[i]);
                snprintf(path, sizeof(path), HWMON_DIR "/hwmon%u", idx[i]);
                hwmon_chip_label(root, path, idx[i], names[i], (size_t)lens[i], shared, chip,
                                 sizeof(chip));
                hwmon_add_chip(st, root, path, chip, strlen(chip));
        }
        if (st->n == 0)
                st->rescan = true;
}

static int hwmon_init(struct vigil_ctx *ctx, void **ret_state)
{
        struct hwmon_state *st = calloc(1, sizeof(*st));
        if (!st)
                return -ENOMEM;
        hwmon_scan(st, ctx->opt->root);
        *ret_state = st;
        return 0;
}

static bool device_gone(int err)
{
        return err == -ENODEV || err == -ENOENT || err == -ENXIO;
}

VIGIL_HOT static int hwmon_sample(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct hwmon_state *st = state;
        struct host_frame *h = &ctx->frame->host;

        if (st->rescan && retry_due(&st->gate, t->mono_ns, RETRY_INTERVAL_NS))
                hwmon_scan(st, ctx->opt->root);
        for (unsigned i = 0; i < st->n; i++) {
                char buf[32];
                struct host_temp *out = &h->temps[i];
                int r = attr_read(st->s[i].fd, buf, sizeof(buf));
                out->celsius = VAL_MISSING;
                if (r >= 0)
                        host_temp_parse_millic(buf, (size_t)r, &out->celsius);
                else if (device_gone(r))
                        st->rescan = true;
                memcpy(out->chip, st->s[i].chip, sizeof(out->chip));
                memcpy(out->sensor, st->s[i].sensor, sizeof(out->sensor));
        }
        h->ntemps = st->n;
        return 0;
}

static void hwmon_fini(void *state)
{
        struct hwmon_state *st = state;
        if (!st)
                return;
        hwmon_close_all(st);
        free(st);
}

const struct vigil_source vigil_source_sys_hwmon = {
    .name = "sys-hwmon",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .init = hwmon_init,
    .sample = hwmon_sample,
    .fini = hwmon_fini,
};
