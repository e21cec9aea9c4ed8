/* SPDX-License-Identifier: Apache-2.0 */
/* What a Raspberry Pi's kernel exposes without the firmware mailbox: the board model,
 * the SoC thermal zone, the rpi_volt hwmon chip, and the V3D GPU's per-queue
 * statistics. Finders return paths without the root prefix (pfile_open adds it). */
#ifndef VIGIL_COLLECT_RPI_SYSFS_H
#define VIGIL_COLLECT_RPI_SYSFS_H

#include <stddef.h>
#include <stdint.h>

#define RPI_SCAN_MAX        32   /* thermal_zoneN / hwmonN / cardN looked at */
#define V3D_STATS_MAX_BYTES 2048 /* gpu_stats read at most */

/* Read ROOT/proc/device-tree/model (NUL-terminated in the device tree) into out.
 * Returns 1 and fills out when it names a Raspberry Pi, 0 when it is another board,
 * or -errno when there is no model file (not a device-tree machine). */
int rpi_read_model(const char *root, char *out, size_t cap);

/* The board generation from a model string: "Raspberry Pi 4 Model B Rev 1.4" -> 4,
 * "Raspberry Pi Compute Module 5 Rev 1.0" -> 5, "Raspberry Pi 500 Rev 1.0" -> 5,
 * "Raspberry Pi Model B Rev 2" -> 1; 0 when it cannot tell ("Raspberry Pi Zero 2 W"). */
int rpi_model_generation(const char *model);

/* Path of the temp file of the first thermal zone whose type is `type`
 * ("/sys/class/thermal/thermal_zone0/temp"). 0 or -ENOENT. */
int rpi_find_thermal_zone(const char *root, const char *type, char *out, size_t cap);

/* Directory of the first hwmon chip named `name` ("/sys/class/hwmon/hwmon1").
 * Numbering is not stable across boots, hence the search. 0 or -ENOENT. */
int rpi_find_hwmon(const char *root, const char *name, char *out, size_t cap);

/* Path of the first V3D statistics file ("/sys/class/drm/card0/device/gpu_stats").
 * 0 or -ENOENT. */
int rpi_find_gpu_stats(const char *root, char *out, size_t cap);

/* One queue of the v3d driver's gpu_stats file:
 *   queue   timestamp       jobs    runtime
 *   bin     239043069420    22620   17438164056
 * timestamp and runtime are nanoseconds (runtime: total time the queue ran). */
struct v3d_queue_stat {
        char name[16];
        uint64_t timestamp_ns;
        uint64_t jobs;
        uint64_t runtime_ns;
};

/* Parse gpu_stats text into out[0..cap). The header line is skipped; malformed
 * lines are skipped. Returns the queues parsed (0..cap). */
unsigned v3d_stats_parse(const char *s, size_t n, struct v3d_queue_stat *out, unsigned cap);

/* Share of the time between two readings of one queue that it ran, 0..1 (clamped);
 * NAN when it cannot be told (different queue, no time passed, counters went back). */
double v3d_busy_ratio(const struct v3d_queue_stat *prev, const struct v3d_queue_stat *cur);

#endif
