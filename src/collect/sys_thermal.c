/* SPDX-License-Identifier: Apache-2.0 */
/* Thermal zones and the main temperature (see sys_thermal.h).
 *
 *   /sys/class/thermal/thermal_zone0/type  cpu-thermal
 *   /sys/class/thermal/thermal_zone0/temp  47236
 *
 * Each zone's temp is kept open and re-read with one pread per sample. */
#include "collect/sys_thermal.h"

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

#define THERMAL_DIR       "/sys/class/thermal"
#define THERMAL_MAX_ZONES VIGIL_MAX_TEMPS

struct thermal_zone {
        int fd; /* temp, -1 when it could not be opened */
        char type[32];
        char sensor[32]; /* "thermal_zoneN" */
};

struct thermal_state {
        unsigned n;
        struct thermal_zone z[THERMAL_MAX_ZONES];
        bool rescan;
        struct retry_gate gate;
};

static void thermal_close_all(struct thermal_state *st)
{
        for (unsigned i = 0; i < st->n; i++) {
                if (st->z[i].fd >= 0)
                        close(st->z[i].fd);
        }
        st->n = 0;
}

static void thermal_scan(struct thermal_state *st, const char *root)
{
        unsigned idx[THERMAL_MAX_ZONES];
        thermal_close_all(st);
        st->rescan = false;
        int n = sysfs_scan_indices(root, THERMAL_DIR, "thermal_zone", "", idx, THERMAL_MAX_ZONES);
        for (int i = 0; i < n; i++) {
                char file[128], type[64];
                struct thermal_zone *z = &st->z[st->n];
                snprintf(file, sizeof(file), THERMAL_DIR "/thermal_zone%u/type", idx[i]);
                int len = read_line_at(root, file, type, sizeof(type));
                if (len <= 0)
                        continue;
                snprintf(file, sizeof(file), THERMAL_DIR "/thermal_zone%u/temp", idx[i]);
                z->fd = attr_open(root, file);
                if (z->fd < 0)
                        z->fd = -1;
                copy_bounded(z->type, sizeof(z->type), type, (size_t)len);
                snprintf(z->sensor, sizeof(z->sensor), "thermal_zone%u", idx[i]);
                st->n++;
        }
        if (st->n == 0)
                st->rescan = true;
}

static int thermal_init(struct vigil_ctx *ctx, void **ret_state)
{
        struct thermal_state *st = calloc(1, sizeof(*st));
        if (!st)
                return -ENOMEM;
        thermal_scan(st, ctx->opt->root);
        *ret_state = st;
        return 0;
}

VIGIL_HOT static int thermal_sample(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct thermal_state *st = state;
        struct host_frame *h = &ctx->frame->host;

        if (st->rescan && retry_due(&st->gate, t->mono_ns, RETRY_INTERVAL_NS))
                thermal_scan(st, ctx->opt->root);
        if (h->ntemps > VIGIL_MAX_TEMPS)
                h->ntemps = VIGIL_MAX_TEMPS;
        for (unsigned i = 0; i < st->n && h->ntemps < VIGIL_MAX_TEMPS; i++) {
                char buf[32];
                struct host_temp *out = &h->temps[h->ntemps++];
                int r = attr_read(st->z[i].fd, buf, sizeof(buf));
                out->celsius = VAL_MISSING;
                if (r >= 0)
                        host_temp_parse_millic(buf, (size_t)r, &out->celsius);
                else if (r == -ENODEV || r == -ENOENT || r == -ENXIO)
                        st->rescan = true;
                memcpy(out->chip, st->z[i].type, sizeof(out->chip));
                memcpy(out->sensor, st->z[i].sensor, sizeof(out->sensor));
        }
        int main_i = host_temp_pick_main(h->temps, h->ntemps);
        h->temp_c = main_i >= 0 ? h->temps[main_i].celsius : VAL_MISSING;
        return 0;
}

static void thermal_fini(void *state)
{
        struct thermal_state *st = state;
        if (!st)
                return;
        thermal_close_all(st);
        free(st);
}

const struct vigil_source vigil_source_sys_thermal = {
    .name = "sys-thermal",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .init = thermal_init,
    .sample = thermal_sample,
    .fini = thermal_fini,
};
