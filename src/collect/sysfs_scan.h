/* SPDX-License-Identifier: Apache-2.0 */
/* Finding numbered sysfs entries (hwmonN, thermal_zoneN, cpuN, tempN_input) by
 * their names, never by assuming the numbers. Used at init and on rare rescans only. */
#ifndef VIGIL_COLLECT_SYSFS_SCAN_H
#define VIGIL_COLLECT_SYSFS_SCAN_H

#include <stddef.h>

/* Largest index sysfs_name_index accepts. */
#define SYSFS_MAX_INDEX 999999u

/* When name is exactly prefix, decimal digits (no sign, at most SYSFS_MAX_INDEX, no
 * leading zero unless "0"), then suffix: the number in *ret, 0. Else -EINVAL. */
int sysfs_name_index(const char *name, const char *prefix, const char *suffix, unsigned *ret);

/* The indices of the entries of directory root+dir named prefix<N>suffix, sorted
 * ascending, at most cap of the smallest. Returns the count or -errno (the directory
 * could not be opened). */
int sysfs_scan_indices(const char *root, const char *dir, const char *prefix, const char *suffix,
                       unsigned *ret, unsigned cap);

#endif
