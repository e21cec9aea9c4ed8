/* SPDX-License-Identifier: Apache-2.0 */
/* Thermal zones as fallback temperature sensors, and the choice of the main one:
 * every /sys/class/thermal/thermal_zoneN with a `type` (found by name at init,
 * rescanned at most every 60 s when a zone went away or none was found).
 *
 * Frame: appends to host.temps[] after sys_hwmon's sensors (chip = the zone's type,
 * sensor = "thermal_zoneN"), then sets host.temp_c with host_temp_pick_main() over all
 * of host.temps[] (hwmon chips first, then zones, like the reference's hwmon0 then
 * thermal_zone0). It must run after sys_hwmon in the registry. */
#ifndef VIGIL_COLLECT_SYS_THERMAL_H
#define VIGIL_COLLECT_SYS_THERMAL_H

struct vigil_source;
extern const struct vigil_source vigil_source_sys_thermal;

#endif
