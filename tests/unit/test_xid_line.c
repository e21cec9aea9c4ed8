/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the Xid kernel log line parser (collect/xid_line.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collect/xid_line.h"

static struct xid_line parse_ok(const char *s)
{
        struct xid_line x;
        assert_int_equal(xid_parse_line(s, strlen(s), &x), 0);
        return x;
}

static void test_full_line(void **state)
{
        (void)state;
        struct xid_line x = parse_ok("NVRM: Xid (PCI:0000:01:00): 79, pid=1234, name=python3, "
                                     "GPU has fallen off the bus.");
        assert_string_equal(x.pci, "0000:01:00");
        assert_string_equal(x.instance, "");
        assert_int_equal(x.code, 79);
        assert_int_equal(x.pid, 1234);
        assert_string_equal(x.name, "python3");
        assert_string_equal(x.message, "GPU has fallen off the bus.");
}

static void test_without_pid_and_name(void **state)
{
        (void)state;
        struct xid_line x = parse_ok("NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.");
        assert_string_equal(x.pci, "0000:01:00");
        assert_int_equal(x.code, 79);
        assert_int_equal(x.pid, -1);
        assert_string_equal(x.name, "");
        assert_string_equal(x.message, "GPU has fallen off the bus.");
}

static void test_without_pci_prefix(void **state)
{
        (void)state;
        struct xid_line x =
            parse_ok("NVRM: Xid (0000:3b:00): 13, Graphics Exception: ESR 0x404600=0x80000001");
        assert_string_equal(x.pci, "0000:3b:00");
        assert_int_equal(x.code, 13);
        assert_int_equal(x.pid, -1);
        assert_string_equal(x.message, "Graphics Exception: ESR 0x404600=0x80000001");
}

static void test_mig_instance(void **state)
{
        (void)state;
        struct xid_line x = parse_ok("NVRM: Xid (PCI:0000:3b:00 GPU-I:05): 31, pid=4242, "
                                     "name=python3, Ch 00000008, intr 00000000. MMU Fault");
        assert_string_equal(x.pci, "0000:3b:00");
        assert_string_equal(x.instance, "GPU-I:05");
        assert_int_equal(x.code, 31);
        assert_int_equal(x.pid, 4242);
        assert_string_equal(x.name, "python3");
        /* Commas in the message stay. */
        assert_string_equal(x.message, "Ch 00000008, intr 00000000. MMU Fault");
}

static void test_unknown_pid(void **state)
{
        (void)state;
        struct xid_line x = parse_ok("NVRM: Xid (PCI:0000:01:00): 62, pid='<unknown>', "
                                     "name=<unknown>, 2a5c3b18 2a5c3630 00000000");
        assert_int_equal(x.code, 62);
        assert_int_equal(x.pid, -1);
        assert_string_equal(x.name, "<unknown>");
        assert_string_equal(x.message, "2a5c3b18 2a5c3630 00000000");
}

static void test_in_context(void **state)
{
        (void)state;
        /* A dmesg line, and a record followed by other lines: only the Xid line counts. */
        struct xid_line x = parse_ok("[ 3606.123456] NVRM: Xid (PCI:0000:01:00): 119, pid=4242, "
                                     "name=python3, Timeout after 6s of waiting for RPC response "
                                     "from GPU0 GSP!  \nnext line: 5, x");
        assert_int_equal(x.code, 119);
        assert_string_equal(x.message,
                            "Timeout after 6s of waiting for RPC response from GPU0 GSP!");
        x = parse_ok("NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 "
                     "(None) to 0x1 (GPU Reset Required)");
        assert_int_equal(x.code, 154);
        assert_string_equal(
            x.message, "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)");
}

static void test_bounded(void **state)
{
        (void)state;
        struct xid_line x;
        /* n stops before the tail; the buffer is not NUL-terminated there. */
        const char buf[] = "NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.TAIL";
        assert_int_equal(xid_parse_line(buf, sizeof(buf) - 5, &x), 0);
        assert_string_equal(x.message, "GPU has fallen off the bus.");
        /* Cut before the code: no Xid. */
        assert_int_equal(xid_parse_line(buf, 30, &x), -EINVAL);
        /* A long message is cut to fit. */
        char big[1024];
        size_t n = (size_t)snprintf(big, sizeof(big), "NVRM: Xid (PCI:0000:01:00): 43, ");
        memset(big + n, 'm', sizeof(big) - n);
        assert_int_equal(xid_parse_line(big, sizeof(big), &x), 0);
        assert_int_equal(strlen(x.message), sizeof(x.message) - 1);
}

static void test_not_xid(void **state)
{
        (void)state;
        struct xid_line x = {.code = 7};
        static const char *const bad[] = {
            "",
            "NVRM: GPU at PCI:0000:01:00: GPU-5a1b2c3d",
            "NVRM: Xid (PCI:0000:01:00)",                 /* no code */
            "NVRM: Xid (PCI:0000:01:00): 79",             /* no comma after the code */
            "NVRM: Xid (): 79, x",                        /* no bus id */
            "NVRM: Xid (PCI:zz): 79, x",                  /* not hex */
            "NVRM: Xid (PCI:0000:01:00: 79, x",           /* no closing bracket */
            "NVRM: Xid (PCI:0000:01:00): 99999999999, x", /* out of range */
            "NVRM: Xid (PCI:0000:01:00)\n: 79, x",        /* the code on the next line */
            "NVRM: Xid (PCI:0000:00000000000000000000000000000001:00): 79, x", /* id too long */
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                assert_int_equal(xid_parse_line(bad[i], strlen(bad[i]), &x), -EINVAL);
        assert_int_equal(x.code, 7); /* untouched */
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_full_line),
            cmocka_unit_test(test_without_pid_and_name),
            cmocka_unit_test(test_without_pci_prefix),
            cmocka_unit_test(test_mig_instance),
            cmocka_unit_test(test_unknown_pid),
            cmocka_unit_test(test_in_context),
            cmocka_unit_test(test_bounded),
            cmocka_unit_test(test_not_xid),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
