/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the signage player's parsers: DRM connector sysfs texts and EDID
 * (collect/display_parse.c, on the real EDIDs of the fixture trees), the CEC power
 * status reply, /proc/net/wireless, /proc/net/route and ipv6_route, operstate
 * (collect/net_parse.c), the eMMC wear files, /proc/diskstats and /proc/self/io
 * (collect/sdcard_parse.c); the CEC adapter's fake and a character device that is no
 * adapter (collect/cec.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/cec.h"
#include "collect/display_parse.h"
#include "collect/net_parse.h"
#include "collect/sdcard_parse.h"
#include "util/pfile.h"

static void test_connector_words(void **state)
{
        (void)state;
        double v = -1;
        assert_int_equal(drm_parse_status("connected\n", &v), 0);
        assert_true(v == 1);
        assert_int_equal(drm_parse_status("disconnected\n", &v), 0);
        assert_true(v == 0);
        assert_int_equal(drm_parse_status("unknown\n", &v), 0);
        assert_true(isnan(v));
        v = 5;
        assert_int_equal(drm_parse_status("connect\n", &v), -EINVAL);
        assert_int_equal(drm_parse_status("", &v), -EINVAL);
        assert_true(v == 5);
        assert_int_equal(drm_parse_enabled("enabled\n", &v), 0);
        assert_true(v == 1);
        assert_int_equal(drm_parse_enabled("disabled\n", &v), 0);
        assert_true(v == 0);
        assert_int_equal(drm_parse_dpms("On\n", &v), 0);
        assert_true(v == 0);
        assert_int_equal(drm_parse_dpms("Suspend\n", &v), 0);
        assert_true(v == 2);
        assert_int_equal(drm_parse_dpms("Off\n", &v), 0);
        assert_true(v == 3);
        assert_int_equal(drm_parse_dpms("off\n", &v), -EINVAL);
        assert_string_equal(drm_dpms_name(1), "Standby");
        assert_string_equal(drm_dpms_name(NAN), "?");
}

static int load(const char *path, uint8_t *buf, size_t cap)
{
        char tmp[1024];
        int n = read_file_at(NULL, path, tmp, sizeof(tmp));
        assert_true(n >= 0 && (size_t)n <= cap);
        memcpy(buf, tmp, (size_t)n);
        return n;
}

static void test_edid_real(void **state)
{
        (void)state;
        uint8_t b[512];
        struct edid_ident e;
        /* A DELL U3818DW (linuxhw/EDID DELA0F3), base block and CTA-861 extension. */
        int n = load("tests/fixtures/pi4/sys/class/drm/card1-HDMI-A-1/edid", b, sizeof(b));
        assert_int_equal(n, 256);
        assert_int_equal(edid_parse(b, (size_t)n, &e), 0);
        assert_string_equal(e.name, "DELL U3818DW");
        assert_string_equal(e.serial, "5KC03043090L");
        assert_string_equal(e.id, "DEL-A0F3");
        assert_int_equal(e.serial_number, 0x3039304C);
        /* A Samsung C49RG9x (SAM0F99), the name padded with spaces after its 0x0A. */
        n = load("tests/fixtures/pi5/sys/class/drm/card1-HDMI-A-1/edid", b, sizeof(b));
        assert_int_equal(edid_parse(b, (size_t)n, &e), 0);
        assert_string_equal(e.name, "C49RG9x");
        assert_string_equal(e.serial, "HNKNC00549");
        assert_string_equal(e.id, "SAM-0F99");
}

static void test_edid_bad(void **state)
{
        (void)state;
        uint8_t b[512];
        struct edid_ident e;
        memset(&e, 0x55, sizeof(e));
        int n = load("tests/fixtures/pi4/sys/class/drm/card1-HDMI-A-1/edid", b, sizeof(b));
        assert_int_equal(edid_parse(b, 0, &e), -ENODATA);
        assert_int_equal(edid_parse(b, 127, &e), -EINVAL);
        b[100] ^= 1; /* checksum */
        assert_int_equal(edid_parse(b, (size_t)n, &e), -EINVAL);
        b[100] ^= 1;
        b[0] = 1; /* header */
        assert_int_equal(edid_parse(b, (size_t)n, &e), -EINVAL);
        assert_int_equal(e.serial_number, 0x55555555); /* untouched */
        /* No 0xFF descriptor: the base block's serial number in decimal. */
        b[0] = 0;
        b[75] = 0xFE; /* the serial descriptor's tag becomes "unspecified text" */
        b[127] = (uint8_t)(b[127] + 1);
        assert_int_equal(edid_parse(b, (size_t)n, &e), 0);
        assert_string_equal(e.serial, "809054284"); /* 0x3039304C */
}

static void test_cec(void **state)
{
        (void)state;
        /* TV (0) to a playback device (4): <Report Power Status> standby. */
        const uint8_t standby[] = {0x04, 0x90, 0x01};
        const uint8_t other[] = {0x04, 0x87, 0x00, 0x00, 0xf0};
        const uint8_t bad[] = {0x04, 0x90, 0x07};
        assert_int_equal(cec_parse_power_status(standby, sizeof(standby)), 1);
        assert_int_equal(cec_parse_power_status(standby, 2), -EINVAL);
        assert_int_equal(cec_parse_power_status(other, sizeof(other)), -EINVAL);
        assert_int_equal(cec_parse_power_status(bad, sizeof(bad)), -EINVAL);
        assert_string_equal(cec_power_name(3), "to-standby");
}

static void test_cec_adapters(void **state)
{
        (void)state;
        char path[] = "/tmp/vigil-cec-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        struct cec *c = NULL;
        assert_int_equal(cec_open("/nonexistent/cec0", &c), -ENOENT);
        /* The fake: its answer at the question, once. */
        assert_int_equal(write(fd, "power 1\n", 8), 8);
        assert_int_equal(cec_open(path, &c), 0);
        assert_true(cec_is_fake(c));
        assert_int_equal(cec_answer(c), -EAGAIN);
        assert_int_equal(cec_ask(c), 0);
        assert_int_equal(cec_answer(c), 1);
        assert_int_equal(cec_answer(c), -EAGAIN);
        assert_int_equal(ftruncate(fd, 0), 0);
        assert_int_equal(pwrite(fd, "nack\n", 5, 0), 5);
        assert_int_equal(cec_ask(c), 0);
        assert_int_equal(cec_answer(c), -ETIMEDOUT);
        assert_int_equal(pwrite(fd, "unconfigured\n", 13, 0), 13);
        assert_int_equal(cec_ask(c), -EADDRNOTAVAIL);
        assert_int_equal(ftruncate(fd, 0), 0);
        assert_int_equal(pwrite(fd, "power 9\n", 8, 0), 8);
        assert_int_equal(cec_ask(c), -EINVAL);
        cec_close(c);
        close(fd);
        unlink(path);
        /* A character device that is no CEC adapter: the ioctl fails, said as such. */
        assert_int_equal(cec_open("/dev/null", &c), 0);
        assert_false(cec_is_fake(c));
        assert_int_equal(cec_ask(c), -ENOTTY);
        cec_close(c);
}

/* /proc/net/wireless of a Pi 4 (brcmfmac), associated wlan0 and an idle wlan1. */
static const char wireless[] =
    "Inter-| sta-|   Quality        |   Discarded packets               | Missed | WE\n"
    " face | tus | link level noise |  nwid  crypt   frag  retry   misc | beacon | 22\n"
    " wlan0: 0000   58.  -52.  -256        0      0      0      0     12        0\n"
    " wlan1: 0000    0     0     0        0      0      0      0      0        0\n"
    "  wlan2: 0000  abc\n";

static void test_wireless(void **state)
{
        (void)state;
        struct wireless_stats w = {NAN, NAN};
        size_t n = sizeof(wireless) - 1;
        assert_int_equal(net_parse_wireless(wireless, n, "wlan0", &w), 0);
        assert_true(w.quality == 58 && w.level == -52);
        /* Not associated: zeros without the '.' of an updated value. */
        assert_int_equal(net_parse_wireless(wireless, n, "wlan1", &w), 0);
        assert_true(isnan(w.quality) && isnan(w.level));
        assert_int_equal(net_parse_wireless(wireless, n, "wlan", &w), -ENOENT);
        assert_int_equal(net_parse_wireless(wireless, n, "eth0", &w), -ENOENT);
        assert_int_equal(net_parse_wireless(wireless, n, "wlan2", &w), -EINVAL);
}

static void test_routes(void **state)
{
        (void)state;
        static const char hdr[] = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask"
                                  "\t\tMTU\tWindow\tIRTT\n";
        char buf[512];
        snprintf(buf, sizeof(buf),
                 "%swlan0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0\n"
                 "wlan0\t0001A8C0\t00000000\t0001\t0\t0\t600\t00FFFFFF\t0\t0\t0\n",
                 hdr);
        assert_true(net_route_has_default(buf, strlen(buf)));
        snprintf(buf, sizeof(buf),
                 "%swlan0\t0001A8C0\t00000000\t0001\t0\t0\t600\t00FFFFFF\t0\t0\t0\n", hdr);
        assert_false(net_route_has_default(buf, strlen(buf)));
        /* A default route that is not up. */
        snprintf(buf, sizeof(buf),
                 "%seth0\t00000000\t0100000A\t0002\t0\t0\t100\t00000000\t0\t0\t0\n", hdr);
        assert_false(net_route_has_default(buf, strlen(buf)));
        assert_false(net_route_has_default(hdr, strlen(hdr)));

        static const char v6_none[] =
            "fe800000000000000000000000000000 40 00000000000000000000000000000000 00 "
            "00000000000000000000000000000000 00000100 00000001 00000000 00000001    wlan0\n"
            "00000000000000000000000000000000 00 00000000000000000000000000000000 00 "
            "00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo\n";
        static const char v6_default[] =
            "00000000000000000000000000000000 00 00000000000000000000000000000000 00 "
            "fe80000000000000020d3afffe1b2c3d 00000400 00000001 00000000 00450003    wlan0\n";
        assert_false(net_ipv6_route_has_default(v6_none, sizeof(v6_none) - 1));
        assert_true(net_ipv6_route_has_default(v6_default, sizeof(v6_default) - 1));
}

static void test_operstate(void **state)
{
        (void)state;
        double v = -1;
        assert_int_equal(net_parse_operstate("up\n", &v), 0);
        assert_true(v == 1);
        assert_int_equal(net_parse_operstate("dormant\n", &v), 0);
        assert_true(v == 0);
        assert_int_equal(net_parse_operstate("unknown\n", &v), 0);
        assert_true(isnan(v));
        assert_int_equal(net_parse_operstate("upp\n", &v), -EINVAL);
}

static void test_sd(void **state)
{
        (void)state;
        double a = NAN, b = NAN, e = NAN;
        assert_int_equal(sd_parse_life_time("0x01 0x0b\n", &a, &b), 0);
        assert_true(a == 1 && b == 11);
        assert_int_equal(sd_parse_life_time("0x01\n", &a, &b), -EINVAL);
        assert_int_equal(sd_parse_life_time("1 2\n", &a, &b), -EINVAL);
        assert_int_equal(sd_parse_pre_eol("0x02\n", &e), 0);
        assert_true(e == 2);
        assert_int_equal(sd_parse_pre_eol("0x100\n", &e), -EINVAL);

        static const char ds[] =
            " 179       0 mmcblk0 48250 17012 3381642 60411 25021 41722 1046528 1803004 0 "
            "513620 1880040 0 0 0 0 1312 16624\n"
            " 179       1 mmcblk0p1 337 1275 24606 1044 2 0 2 3 0 716 1047 0 0 0 0 0 0\n"
            " 179       8 mmcblk1 1 2 3\n";
        uint64_t v = 0;
        assert_int_equal(sd_parse_diskstats_written(ds, sizeof(ds) - 1, "mmcblk0", &v), 0);
        assert_int_equal(v, 1046528);
        assert_int_equal(sd_parse_diskstats_written(ds, sizeof(ds) - 1, "mmcblk0p1", &v), 0);
        assert_int_equal(v, 2);
        assert_int_equal(sd_parse_diskstats_written(ds, sizeof(ds) - 1, "mmcblk1", &v), -EINVAL);
        assert_int_equal(sd_parse_diskstats_written(ds, sizeof(ds) - 1, "sda", &v), -ENOENT);

        static const char io[] = "rchar: 18426021\nwchar: 3164722\nread_bytes: 7651328\n"
                                 "write_bytes: 2084864\ncancelled_write_bytes: 4096\n";
        assert_int_equal(sd_parse_io_write_bytes(io, sizeof(io) - 1, &v), 0);
        assert_int_equal(v, 2084864);
        assert_int_equal(sd_parse_io_write_bytes("rchar: 1\n", 9, &v), -ENOENT);
        assert_int_equal(sd_parse_io_write_bytes("write_bytes: x\n", 15, &v), -EINVAL);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_connector_words), cmocka_unit_test(test_edid_real),
            cmocka_unit_test(test_edid_bad),        cmocka_unit_test(test_cec),
            cmocka_unit_test(test_wireless),        cmocka_unit_test(test_routes),
            cmocka_unit_test(test_operstate),       cmocka_unit_test(test_sd),
            cmocka_unit_test(test_cec_adapters),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
