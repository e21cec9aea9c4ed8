/* SPDX-License-Identifier: Apache-2.0 */
/* Temperatures shared by the hwmon and thermal-zone sources: parsing a sysfs
 * temperature, naming a sensor, and choosing the machine's main CPU/SoC temperature. */
#ifndef VIGIL_COLLECT_HOST_TEMP_H
#define VIGIL_COLLECT_HOST_TEMP_H

#include <stddef.h>

#include "core/frame.h"

/* Parse a sysfs temperature in millidegrees Celsius ("47236\n"; may be negative)
 * into degrees. Values below -273150 or above 1000000 (1000 C) are not temperatures:
 * -ERANGE. 0, -EINVAL or -ERANGE; *ret_c untouched on failure. */
int host_temp_parse_millic(const char *s, size_t n, double *ret_c);

/* Which of t[0..n) is the main CPU/SoC temperature: the first sensor with a value
 * (not NAN) of the first chip, in this order of preference, that has one:
 * cpu_thermal, cpu-thermal, coretemp "Package id 0", coretemp, k10temp "Tctl", k10temp,
 * zenpower, soc_thermal, x86_pkg_temp, acpitz; else the first sensor with a value.
 * Returns its index, or -1 when no sensor has a value. Pure. */
int host_temp_pick_main(const struct host_temp *t, unsigned n);

#endif
