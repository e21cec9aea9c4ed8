/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: PCIe state from sysfs (collect/pcie.c), on tests/fixtures/pcie. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "collect/pcie.h"

#define HEALTHY "tests/fixtures/pcie/healthy"
#define OFFBUS  "tests/fixtures/pcie/offbus"

static void test_sysfs_name(void **state)
{
        (void)state;
        char b[PCIE_NAME_MAX];
        assert_int_equal(pcie_sysfs_name("00000000:01:00.0", b, sizeof(b)), 0);
        assert_string_equal(b, "0000:01:00.0");
        assert_int_equal(pcie_sysfs_name("00000000:3B:00.0", b, sizeof(b)), 0);
        assert_string_equal(b, "0000:3b:00.0");
        assert_int_equal(pcie_sysfs_name("00010000:C1:1F.7", b, sizeof(b)), 0);
        assert_string_equal(b, "10000:c1:1f.7");
        assert_int_equal(pcie_sysfs_name("0000:01:00.0", b, sizeof(b)), 0);
        assert_string_equal(b, "0000:01:00.0");
        assert_int_equal(pcie_sysfs_name("01:00.0", b, sizeof(b)), 0);
        assert_string_equal(b, "0000:01:00.0");
        static const char *const bad[] = {
            "",
            "xyz",
            "000000000:01:00.0",
            "0000:100:00.0",
            "0000:01:20.0",
            "0000:01:00.8",
            "0000:01:00.0.1",
            "0000:01:00.0 ",
            "0000::00.0",
            ":01:00.0",
            "0000:01:00.",
            "PCI:",
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                assert_int_equal(pcie_sysfs_name(bad[i], b, sizeof(b)), -EINVAL);
        assert_int_equal(pcie_sysfs_name(NULL, b, sizeof(b)), -EINVAL);
        assert_int_equal(pcie_sysfs_name("00000000:01:00.0", b, 12), -ENOSPC);
}

static void test_same_device(void **state)
{
        (void)state;
        assert_true(pcie_same_device("00000000:01:00.0", "0000:01:00"));
        assert_true(pcie_same_device("PCI:0000:01:00", "00000000:01:00.0"));
        assert_true(pcie_same_device("00000000:3B:00.0", "0000:3b:00.0"));
        assert_true(pcie_same_device("01:00.0", "0000:01:00.0"));
        assert_false(pcie_same_device("0000:01:00.1", "0000:01:00.0"));
        assert_false(pcie_same_device("0000:02:00", "0000:01:00"));
        assert_false(pcie_same_device("0001:01:00", "0000:01:00"));
        assert_false(pcie_same_device("junk", "0000:01:00"));
        assert_false(pcie_same_device(NULL, "0000:01:00"));
}

static void test_parse_aer(void **state)
{
        (void)state;
        struct pcie_aer a;
        const char *doc = "Receiver Error 2\nBad TLP 0\nBad DLLP 0\nRELAY_NUM Rollover 0\n"
                          "Replay Timer Timeout 0\nAdvisory Non-Fatal 0\n"
                          "Corrected Internal Error 0\nHeader Log Overflow 0\nTOTAL_ERR_COR 2\n";
        assert_int_equal(pcie_parse_aer(doc, strlen(doc), &a), 0);
        assert_true(a.present);
        assert_int_equal(a.total, 2);
        assert_int_equal(a.nnonzero, 1);
        assert_string_equal(a.nonzero[0].name, "Receiver Error");
        assert_int_equal(a.nonzero[0].count, 2);
        /* The total line is what counts, even when it differs from the sum. */
        const char *t = "BadTLP 4\nRxErr 1\nTOTAL_ERR_COR 3\n";
        assert_int_equal(pcie_parse_aer(t, strlen(t), &a), 0);
        assert_int_equal(a.total, 3);
        assert_int_equal(a.nnonzero, 2);
        assert_string_equal(a.nonzero[1].name, "RxErr");
        /* Without a total line: the sum. Junk lines are skipped. */
        const char *s = "A 1\nnot a count\nB  2  \r\n\n  \nC x\n";
        assert_int_equal(pcie_parse_aer(s, strlen(s), &a), 0);
        assert_int_equal(a.total, 3);
        assert_int_equal(a.nnonzero, 2);
        assert_string_equal(a.nonzero[1].name, "B");
        /* More nonzero counters than kept. */
        const char *m = "a 1\nb 1\nc 1\nd 1\ne 1\nf 1\ng 1\nh 1\ni 1\nj 1\nTOTAL_ERR_FATAL 10\n";
        assert_int_equal(pcie_parse_aer(m, strlen(m), &a), 0);
        assert_int_equal(a.nnonzero, 10);
        assert_string_equal(a.nonzero[PCIE_AER_KEPT - 1].name, "h");
        /* Bounded: n stops inside the text. */
        assert_int_equal(pcie_parse_aer(doc, 16, &a), 0);
        assert_int_equal(a.total, 2);
        assert_int_equal(a.nnonzero, 1);
        struct pcie_aer keep = a;
        assert_int_equal(pcie_parse_aer("", 0, &a), -EINVAL);
        assert_int_equal(pcie_parse_aer("nothing here\n", 13, &a), -EINVAL);
        assert_int_equal(pcie_parse_aer("42\n", 3, &a), -EINVAL); /* a count needs a name */
        assert_memory_equal(&a, &keep, sizeof(a));
}

static void test_read_healthy(void **state)
{
        (void)state;
        struct pcie_state s;
        assert_int_equal(pcie_read(HEALTHY, "0000:01:00.0", &s), 0);
        assert_true(s.present);
        assert_string_equal(s.link_speed, "16.0 GT/s PCIe");
        assert_string_equal(s.max_link_speed, "16.0 GT/s PCIe");
        assert_true(s.link_width == 16);
        assert_true(s.max_link_width == 16);
        assert_int_equal(s.config_error, 0);
        assert_int_equal(s.vendor_id, 0x10de);
        assert_int_equal(s.device_id, 0x2684);
        assert_false(pcie_off_bus(&s));
        assert_int_equal(s.cor.total, 3);
        assert_int_equal(s.nonfatal.total, 0);
        assert_true(s.fatal.present);
        assert_true(isnan(s.rp_cor)); /* an endpoint has no root port counters */
        assert_string_equal(s.upstream, "0000:00:01.0");
        char buf[1024];
        struct strbuf sb;
        sb_init_fixed(&sb, buf, sizeof(buf));
        pcie_format(&s, "device", &sb);
        assert_string_equal(buf, "device 0000:01:00.0: vendor 0x10de, device 0x2684\n"
                                 "  link: 16.0 GT/s PCIe x16 (max 16.0 GT/s PCIe x16)\n"
                                 "  AER correctable: 3 (Receiver Error 2, Bad TLP 1)\n"
                                 "  AER nonfatal: 0\n"
                                 "  AER fatal: 0\n");
}

static void test_snapshot_healthy(void **state)
{
        (void)state;
        char buf[2048];
        struct strbuf sb;
        sb_init_fixed(&sb, buf, sizeof(buf));
        pcie_snapshot(HEALTHY, "00000000:01:00.0", &sb);
        assert_string_equal(buf, "device 0000:01:00.0: vendor 0x10de, device 0x2684\n"
                                 "  link: 16.0 GT/s PCIe x16 (max 16.0 GT/s PCIe x16)\n"
                                 "  AER correctable: 3 (Receiver Error 2, Bad TLP 1)\n"
                                 "  AER nonfatal: 0\n"
                                 "  AER fatal: 0\n"
                                 "upstream port 0000:00:01.0: vendor 0x8086, device 0x460d\n"
                                 "  link: 16.0 GT/s PCIe x16 (max 16.0 GT/s PCIe x16)\n"
                                 "  AER correctable: 0\n"
                                 "  AER nonfatal: 0\n"
                                 "  AER fatal: 0\n"
                                 "  AER messages received as root port: correctable 0, nonfatal "
                                 "0, fatal 0\n");
}

static void test_snapshot_off_bus(void **state)
{
        (void)state;
        struct pcie_state s;
        assert_int_equal(pcie_read(OFFBUS, "0000:01:00.0", &s), 0);
        assert_true(pcie_off_bus(&s));
        assert_int_equal(s.vendor_id, 0xffff);
        assert_int_equal(s.nonfatal.total, 3);
        char buf[2048];
        struct strbuf sb;
        sb_init_fixed(&sb, buf, sizeof(buf));
        pcie_snapshot(OFFBUS, "00000000:01:00.0", &sb);
        assert_string_equal(buf,
                            "device 0000:01:00.0: config space reads 0xffff: the device no longer "
                            "answers (off the bus)\n"
                            "  link: Unknown x0 (max 16.0 GT/s PCIe x16)\n"
                            "  AER correctable: 3 (Receiver Error 2, Bad TLP 1)\n"
                            "  AER nonfatal: 3 (Completion Timeout 3)\n"
                            "  AER fatal: 0\n"
                            "upstream port 0000:00:01.0: vendor 0x8086, device 0x460d\n"
                            "  link: 16.0 GT/s PCIe x16 (max 16.0 GT/s PCIe x16)\n"
                            "  AER correctable: 5 (Receiver Error 5)\n"
                            "  AER nonfatal: 0\n"
                            "  AER fatal: 1 (Surprise Down Error 1)\n"
                            "  AER messages received as root port: correctable 5, nonfatal 0, "
                            "fatal 1\n");
}

static void test_missing_and_bad(void **state)
{
        (void)state;
        struct pcie_state s;
        char buf[512];
        struct strbuf sb;
        assert_int_equal(pcie_read(HEALTHY, "0000:05:00.0", &s), -ENOENT);
        assert_false(s.present);
        assert_false(pcie_off_bus(&s));
        assert_int_equal(pcie_read(HEALTHY, "00000000:01:00.0", &s), -EINVAL); /* not sysfs form */
        assert_int_equal(pcie_read(HEALTHY, "../../etc", &s), -EINVAL);
        sb_init_fixed(&sb, buf, sizeof(buf));
        pcie_snapshot(HEALTHY, "00000000:05:00.0", &sb);
        assert_string_equal(buf, "device 0000:05:00.0: not in sysfs (removed from the bus, or "
                                 "never enumerated)\n");
        sb_init_fixed(&sb, buf, sizeof(buf));
        pcie_snapshot(HEALTHY, "junk", &sb);
        pcie_snapshot(HEALTHY, NULL, &sb);
        assert_string_equal(buf, "(not a PCI bus id: junk)\n(not a PCI bus id: (none))\n");
        /* A tree without the files: every value missing, nothing invented. */
        sb_init_fixed(&sb, buf, sizeof(buf));
        assert_int_equal(pcie_read("tests/fixtures/pcie", "0000:01:00.0", &s), -ENOENT);
        pcie_format(&s, "device", &sb);
        assert_string_equal(buf, "device 0000:01:00.0: not in sysfs (removed from the bus, or "
                                 "never enumerated)\n");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_sysfs_name),       cmocka_unit_test(test_same_device),
            cmocka_unit_test(test_parse_aer),        cmocka_unit_test(test_read_healthy),
            cmocka_unit_test(test_snapshot_healthy), cmocka_unit_test(test_snapshot_off_bus),
            cmocka_unit_test(test_missing_and_bad),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
