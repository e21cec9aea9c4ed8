/* SPDX-License-Identifier: Apache-2.0 */
/* MMC wear, disk statistics and process I/O parsers. See sdcard_parse.h.
 *
 * drivers/mmc/core/mmc.c (Linux 6.6): MMC_DEV_ATTR(life_time, "0x%02x 0x%02x\n",
 * ext_csd.device_life_time_est_typ_a, _typ_b) and MMC_DEV_ATTR(pre_eol_info, "0x%02x\n",
 * ext_csd.pre_eol_info), eMMC 5.0 and later only (EXT_CSD bytes 268, 269 and 267).
 * JEDEC JESD84-B51 7.4.52-54: DEVICE_LIFE_TIME_EST_TYP_A/B 0x01 = 0-10% of the life
 * time used ... 0x0A = 90-100%, 0x0B = exceeded; PRE_EOL_INFO 0x01 normal, 0x02 warning
 * (80% of the reserved blocks consumed), 0x03 urgent.
 *
 * /proc/diskstats, Documentation/admin-guide/iostats.rst: "major minor name" then the
 * fields, field 7 the sectors written; a sector is 512 bytes whatever the device's.
 *
 * /proc/PID/io, Documentation/filesystems/proc.rst 3.3: "write_bytes: N", the bytes the
 * process caused to be sent to the storage layer. */
#include "collect/sdcard_parse.h"

#include <errno.h>
#include <string.h>

#include "util/parse.h"

#define DISKSTATS_WRITTEN_FIELD 7

static int hex_byte(struct cursor *c, double *ret)
{
        uint64_t v;
        cur_skip_blank(c);
        if (!cur_lit(c, "0x") || cur_hex(c, &v) < 0 || v > 0xff)
                return -EINVAL;
        *ret = (double)v;
        return 0;
}

int sd_parse_life_time(const char *s, double *ret_a, double *ret_b)
{
        struct cursor c = cur_str(s);
        double a, b;
        if (hex_byte(&c, &a) < 0 || hex_byte(&c, &b) < 0)
                return -EINVAL;
        *ret_a = a;
        *ret_b = b;
        return 0;
}

int sd_parse_pre_eol(const char *s, double *ret)
{
        struct cursor c = cur_str(s);
        return hex_byte(&c, ret);
}

int sd_parse_diskstats_written(const char *buf, size_t len, const char *name, uint64_t *ret)
{
        struct cursor c = cur_make(buf, len);
        size_t nl = strlen(name);
        while (!cur_eof(&c)) {
                const char *l, *w;
                size_t ll, wl;
                uint64_t v = 0;
                cur_line(&c, &l, &ll);
                struct cursor lc = cur_make(l, ll);
                if (cur_word(&lc, &w, &wl) < 0 || cur_word(&lc, &w, &wl) < 0 ||
                    cur_word(&lc, &w, &wl) < 0 || wl != nl || memcmp(w, name, nl) != 0)
                        continue;
                for (unsigned f = 1; f <= DISKSTATS_WRITTEN_FIELD; f++)
                        if (cur_u64(&lc, &v) < 0)
                                return -EINVAL;
                *ret = v;
                return 0;
        }
        return -ENOENT;
}

int sd_parse_io_write_bytes(const char *buf, size_t len, uint64_t *ret)
{
        struct cursor c = cur_make(buf, len);
        while (!cur_eof(&c)) {
                if (cur_lit(&c, "write_bytes:")) {
                        uint64_t v;
                        if (cur_u64(&c, &v) < 0)
                                return -EINVAL;
                        *ret = v;
                        return 0;
                }
                cur_next_line(&c);
        }
        return -ENOENT;
}
