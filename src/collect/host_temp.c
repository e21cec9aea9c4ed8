/* SPDX-License-Identifier: Apache-2.0 */
/* Host temperatures: parsing, naming, choosing the main one. See host_temp.h. */
#include "collect/host_temp.h"

#include <errno.h>
#include <string.h>

#include "util/parse.h"
#include "util/hot.h"

VIGIL_HOT int host_temp_parse_millic(const char *s, size_t n, double *ret_c)
{
        int64_t mc;
        int r = parse_i64(s, n, &mc);
        if (r < 0)
                return r;
        if (mc < -273150 || mc > 1000000)
                return -ERANGE;
        *ret_c = (double)mc / 1000.0;
        return 0;
}

/* The main temperature's chips, best first; sensor NULL: any sensor of the chip.
 * cpu_thermal is the Raspberry Pi's SoC zone as a hwmon chip, cpu-thermal the zone
 * itself; x86_pkg_temp exists as a thermal zone only. */
static const struct {
        const char *chip;
        const char *sensor;
} main_temp_pref[] = {
    {"cpu_thermal", NULL}, {"cpu-thermal", NULL}, {"coretemp", "Package id 0"},
    {"coretemp", NULL},    {"k10temp", "Tctl"},   {"k10temp", NULL},
    {"zenpower", NULL},    {"soc_thermal", NULL}, {"x86_pkg_temp", NULL},
    {"acpitz", NULL},
};

#define NPREF (sizeof(main_temp_pref) / sizeof(main_temp_pref[0]))

/* The sensor's place in main_temp_pref, NPREF when it is not there. */
static size_t pref_rank(const struct host_temp *t)
{
        for (size_t p = 0; p < NPREF; p++) {
                if (strcmp(t->chip, main_temp_pref[p].chip) != 0)
                        continue;
                if (!main_temp_pref[p].sensor || strcmp(t->sensor, main_temp_pref[p].sensor) == 0)
                        return p;
        }
        return NPREF;
}

VIGIL_HOT int host_temp_pick_main(const struct host_temp *t, unsigned n)
{
        int best = -1;
        size_t best_rank = NPREF + 1;
        for (unsigned i = 0; i < n && best_rank > 0; i++) {
                if (!VAL_OK(t[i].celsius))
                        continue;
                size_t rank = pref_rank(&t[i]);
                if (rank < best_rank) {
                        best_rank = rank;
                        best = (int)i;
                }
        }
        return best;
}
