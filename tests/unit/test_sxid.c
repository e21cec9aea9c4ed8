/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the NVSwitch SXid catalog (detect/sxid_catalog.c), against NVIDIA's Fabric
 * Manager user guide, DU-09883-001 v1.3 (October 2023), appendix D. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "detect/sxid_catalog.h"

/* The guide's sections, transcribed code by code: D.4 non-fatal, D.5 fatal, D.6 always
 * fatal, D.7 other notable. */
static const unsigned nonfatal[] = {11004, 11012, 11021, 11022, 11023, 12021, 12023, 12028,
                                    15008, 15011, 19049, 19055, 19057, 19059, 19062, 19065,
                                    19068, 19071, 19084, 20001, 24001, 24002, 24003, 22013};
static const unsigned fatal[] = {11001, 11009, 11013, 11018, 11019, 11020, 12001, 12002, 12022,
                                 12024, 12025, 12026, 12027, 12030, 12031, 12032, 14017, 15001,
                                 15006, 15009, 15010, 15012, 15013, 19047, 19048, 19054, 19056,
                                 19058, 19060, 19061, 19063, 19064, 19066, 19067, 19069, 19070,
                                 20034, 22012, 24004, 24005, 24006, 24007, 10001, 10002};
static const unsigned always_fatal[] = {12020, 22003, 22011, 23001, 23002, 23003, 23004,
                                        23005, 23006, 23007, 23008, 23009, 23010, 23011,
                                        23012, 23013, 23014, 23015, 23016, 23017, 10003};
static const unsigned notable[] = {10004, 10005, 20012};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void test_sorted_and_whole(void **state)
{
        (void)state;
        size_t n;
        const struct sxid_info *t = sxid_table(&n);
        assert_int_equal(n, COUNT(nonfatal) + COUNT(fatal) + COUNT(always_fatal) + COUNT(notable));
        for (size_t i = 0; i < n; i++) {
                if (i)
                        assert_true(t[i - 1].code < t[i].code);
                assert_non_null(t[i].name);
                assert_true(t[i].name[0]);
                assert_true(t[i].cls < SXID_CLASS_COUNT);
                assert_ptr_equal(sxid_lookup(t[i].code), &t[i]);
                assert_true(sxid_class_action(t[i].cls)[0]);
                assert_true(sxid_class_impact(t[i].cls)[0]);
        }
        assert_null(sxid_lookup(0));
        assert_null(sxid_lookup(20009)); /* not in the guide */
        assert_null(sxid_lookup(99999));
}

static void test_sections(void **state)
{
        (void)state;
        for (size_t i = 0; i < COUNT(always_fatal); i++) {
                const struct sxid_info *x = sxid_lookup(always_fatal[i]);
                assert_non_null(x);
                assert_int_equal(x->cls, SXID_ALWAYS_FATAL);
                assert_int_equal(sxid_class_event_action(x->cls), EA_REBOOT);
        }
        for (size_t i = 0; i < COUNT(fatal); i++) {
                const struct sxid_info *x = sxid_lookup(fatal[i]);
                assert_non_null(x);
                /* 22012's recovery is the link's mechanics (D.7's wording for it) */
                assert_true(x->cls == SXID_FATAL || (x->code == 22012 && x->cls == SXID_LINK));
        }
        for (size_t i = 0; i < COUNT(nonfatal); i++) {
                const struct sxid_info *x = sxid_lookup(nonfatal[i]);
                assert_non_null(x);
                assert_true(x->cls != SXID_ALWAYS_FATAL);
        }
        for (size_t i = 0; i < COUNT(notable); i++)
                assert_non_null(sxid_lookup(notable[i]));
}

/* The rows whose recovery the guide spells out. */
static void test_recoveries(void **state)
{
        (void)state;
        /* "Restart Guest VM": the partition's traffic stalls, CUDA jobs abort with Xid 45 */
        assert_int_equal(sxid_lookup(12028)->cls, SXID_STALL);
        assert_int_equal(sxid_lookup(11004)->cls, SXID_STALL);
        assert_true(sxid_class_critical(SXID_STALL));
        assert_int_equal(sxid_class_event_action(SXID_STALL), EA_RESTART_WORKLOAD);
        /* "Reset all GPUs and all NVSwitches" */
        assert_int_equal(sxid_lookup(19084)->cls, SXID_FATAL);
        /* single-bit ECC: "Not Applicable" */
        assert_int_equal(sxid_lookup(11012)->cls, SXID_CORRECTED);
        assert_false(sxid_class_critical(SXID_CORRECTED));
        assert_int_equal(sxid_class_event_action(SXID_CORRECTED), EA_NONE);
        /* "can be safely ignored" */
        assert_int_equal(sxid_lookup(22013)->cls, SXID_IGNORE);
        /* "check link mechanical connections" */
        assert_int_equal(sxid_lookup(20012)->cls, SXID_LINK);
        assert_int_equal(sxid_class_event_action(SXID_LINK), EA_INSPECT_HARDWARE);
        /* "Ensure that the system cooling is sufficient" */
        assert_non_null(strstr(sxid_class_action(sxid_lookup(10004)->cls), "cooling"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_sorted_and_whole),
            cmocka_unit_test(test_sections),
            cmocka_unit_test(test_recoveries),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
