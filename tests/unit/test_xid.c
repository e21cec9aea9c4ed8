/* Unit tests: the Xid catalog (detect/xid_catalog.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "detect/xid_catalog.h"

static void test_lookup(void **state)
{
        (void)state;
        const struct xid_info *x = xid_lookup(79);
        assert_non_null(x);
        assert_string_equal(x->meaning, "GPU has fallen off the bus");
        assert_int_equal(x->cls, XID_CLASS_REBOOT);
        assert_string_equal(xid_lookup(119)->meaning, "GSP RPC timeout");
        assert_string_equal(xid_lookup(154)->meaning, "GPU recovery action changed");
        assert_int_equal(xid_lookup(63)->cls, XID_CLASS_INFO);
        assert_int_equal(xid_lookup(13)->cls, XID_CLASS_APP);
        /* The NVLink-5 range. */
        for (unsigned c = 144; c <= 150; c++)
                assert_string_equal(xid_lookup(c)->meaning, "NVLink-5 error");
        assert_null(xid_lookup(0));
        assert_null(xid_lookup(14));
        assert_null(xid_lookup(156));
        assert_null(xid_lookup(999));
}

/* NVIDIA's reset/reboot class: 48 62 64 74 79 95 109 119 120 140 143, and no other. */
static void test_reset_class(void **state)
{
        (void)state;
        static const unsigned reset[] = {48, 62, 64, 74, 79, 95, 109, 119, 120, 140, 143};
        unsigned n = 0;
        for (unsigned c = 0; c < 1000; c++) {
                bool want = false;
                for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++)
                        want |= reset[i] == c;
                assert_int_equal(xid_needs_reset(c), want);
                n += xid_lookup(c) != NULL;
        }
        assert_int_equal(n, 33); /* 27 entries, one of them 144-150 */
        assert_string_equal(xid_class_name(XID_CLASS_RESET), "reset");
        assert_string_equal(xid_class_name(XID_CLASS_REBOOT), "reboot");
}

static void test_describe(void **state)
{
        (void)state;
        char buf[512];
        struct strbuf sb;
        sb_init_fixed(&sb, buf, sizeof(buf));
        assert_int_equal(xid_describe(&sb, 79), 0);
        assert_string_equal(buf, "Xid 79: GPU has fallen off the bus. Action: reboot the machine; "
                                 "if it repeats, check the PCIe slot and riser, the power supply "
                                 "and cooling.");
        sb_init_fixed(&sb, buf, sizeof(buf));
        assert_int_equal(xid_describe(&sb, 62), 0);
        assert_string_equal(buf, "Xid 62: internal micro-controller (PMU) halt. Action: reset the "
                                 "GPU (nvidia-smi -r) or reboot.");
        sb_init_fixed(&sb, buf, sizeof(buf));
        assert_int_equal(xid_describe(&sb, 7), -ENOENT);
        assert_string_equal(buf, "");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_lookup),
            cmocka_unit_test(test_reset_class),
            cmocka_unit_test(test_describe),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
