/* SPDX-License-Identifier: Apache-2.0 */
/* hwmon temperature sensors: every /sys/class/hwmon/hwmonN chip with a `name` file,
 * every tempK_input of it. Chips are found by name at init, never by number (the
 * numbering changes across boots), and rescanned at most every 60 s when a sensor's
 * device went away (ENODEV, ENOENT, ENXIO) or none was found.
 *
 * Frame: this source starts host.temps[] (host.ntemps = 0, then its sensors, in hwmon
 * number order then temp number order); sys_thermal appends to it and picks
 * host.temp_c, so the registry runs sys_hwmon before sys_thermal. chip = the `name`
 * file, sensor = tempK_label or "tempK". */
#ifndef VIGIL_COLLECT_SYS_HWMON_H
#define VIGIL_COLLECT_SYS_HWMON_H

struct vigil_source;
extern const struct vigil_source vigil_source_sys_hwmon;

#endif
