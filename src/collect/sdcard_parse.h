/* SPDX-License-Identifier: Apache-2.0 */
/* Parsers of an MMC card's sysfs wear files, /proc/diskstats and /proc/self/io. Pure;
 * they never log. */
#ifndef VIGIL_COLLECT_SDCARD_PARSE_H
#define VIGIL_COLLECT_SDCARD_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* `life_time` "0x01 0x02\n": the type A and B estimates. 0 or -EINVAL. */
int sd_parse_life_time(const char *s, double *ret_a, double *ret_b);
/* `pre_eol_info` "0x01\n". 0 or -EINVAL. */
int sd_parse_pre_eol(const char *s, double *ret);
/* The sectors written (512-byte units) of device name in the /proc/diskstats text
 * buf[0..len): 0, -ENOENT (no such line) or -EINVAL (a malformed one). */
int sd_parse_diskstats_written(const char *buf, size_t len, const char *name, uint64_t *ret);
/* write_bytes of a /proc/PID/io text buf[0..len): 0, -ENOENT or -EINVAL. */
int sd_parse_io_write_bytes(const char *buf, size_t len, uint64_t *ret);

#endif
