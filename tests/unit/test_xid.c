/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the Xid catalog (detect/xid_catalog.c), against NVIDIA's published one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "detect/xid_catalog.h"

/* NVIDIA, "Analyzing Xid Errors with the Xid Catalog", Table 1 "Xids", column "Resolution
 * Bucket (Immediate Action)", transcribed code by code:
 * https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html
 * Codes 162-172 have no immediate action there (NONE). */
#define CS  XID_BUCKET_CONTACT_SUPPORT
#define APP XID_BUCKET_RESTART_APP
#define IGN XID_BUCKET_IGNORE
#define RST XID_BUCKET_RESET_GPU
#define NO  XID_BUCKET_NONE
/* clang-format off */
static const enum xid_bucket published[XID_CATALOG_LAST + 1] = {
    [1] = CS,    [2] = CS,    [3] = CS,    [4] = CS,    [5] = CS,    [6] = CS,
    [7] = CS,    [8] = APP,   [9] = CS,    [10] = CS,   [11] = APP,  [12] = CS,
    [13] = APP,  [14] = IGN,  [15] = CS,   [16] = CS,   [17] = CS,   [18] = CS,
    [19] = CS,   [20] = CS,   [21] = CS,   [22] = CS,   [23] = CS,   [24] = CS,
    [25] = APP,  [26] = CS,   [27] = CS,   [28] = CS,   [29] = CS,   [30] = CS,
    [31] = APP,  [32] = APP,  [33] = CS,   [34] = CS,   [35] = CS,   [36] = CS,
    [37] = IGN,  [38] = IGN,  [39] = APP,  [40] = APP,  [41] = APP,  [42] = CS,
    [43] = IGN,  [44] = IGN,  [45] = XID_BUCKET_WORKFLOW_XID_45,       [46] = RST,
    [47] = CS,   [48] = XID_BUCKET_WORKFLOW_XID_48,   [49] = CS,   [50] = CS,
    [51] = CS,   [52] = CS,   [53] = CS,   [54] = XID_BUCKET_CHECK_MECHANICALS,
    [55] = CS,   [56] = CS,   [57] = CS,   [58] = CS,   [59] = CS,   [60] = APP,
    [61] = CS,   [62] = RST,  [63] = IGN,  [64] = RST,  [65] = CS,   [66] = IGN,
    [67] = IGN,  [68] = APP,  [69] = APP,  [70] = APP,  [71] = APP,  [72] = APP,
    [73] = CS,   [74] = XID_BUCKET_WORKFLOW_NVLINK_ERR, [75] = APP, [76] = APP,
    [77] = APP,  [78] = XID_BUCKET_UPDATE_SWFW,  [79] = XID_BUCKET_RESTART_BM,
    [80] = APP,  [81] = CS,   [82] = APP,  [83] = APP,  [84] = APP,  [85] = APP,
    [86] = APP,  [87] = CS,   [88] = APP,  [89] = APP,  [90] = CS,   [91] = CS,
    [92] = IGN,  [93] = IGN,  [94] = APP,  [95] = RST,  [96] = APP,  [97] = APP,
    [98] = APP,  [99] = APP,  [100] = APP, [101] = APP, [102] = APP, [103] = APP,
    [104] = APP, [105] = APP, [106] = IGN, [107] = IGN, [108] = IGN, [109] = RST,
    [110] = RST, [111] = CS,  [112] = CS,  [113] = CS,  [114] = CS,  [115] = CS,
    [116] = CS,  [117] = CS,  [118] = CS,  [119] = RST, [120] = RST, [121] = IGN,
    [122] = CS,  [123] = CS,  [124] = CS,  [125] = CS,  [126] = APP, [127] = APP,
    [128] = APP, [129] = APP, [130] = APP, [131] = APP, [132] = APP, [133] = APP,
    [134] = APP, [135] = APP, [136] = RST, [137] = IGN, [138] = CS,  [139] = APP,
    [140] = RST, [141] = IGN, [142] = CS,  [143] = RST,
    [144] = XID_BUCKET_WORKFLOW_NVLINK5_ERR, [145] = XID_BUCKET_WORKFLOW_NVLINK5_ERR,
    [146] = XID_BUCKET_WORKFLOW_NVLINK5_ERR, [147] = XID_BUCKET_WORKFLOW_NVLINK5_ERR,
    [148] = XID_BUCKET_WORKFLOW_NVLINK5_ERR, [149] = XID_BUCKET_WORKFLOW_NVLINK5_ERR,
    [150] = XID_BUCKET_WORKFLOW_NVLINK5_ERR, [151] = XID_BUCKET_RESTART_VM,
    [152] = IGN, [153] = IGN, [154] = XID_BUCKET_XID_154,  [155] = RST, [156] = RST,
    [157] = IGN, [158] = RST, [159] = XID_BUCKET_CHECK_UVM, [160] = IGN, [161] = IGN,
    [162] = NO,  [163] = NO,  [164] = NO,  [165] = NO,  [166] = NO,  [167] = NO,
    [168] = NO,  [169] = NO,  [170] = NO,  [171] = NO,  [172] = NO,
};
/* clang-format on */

/* Every code the catalog lists, with NVIDIA's bucket; nothing else is listed. */
static void test_every_code_against_published(void **state)
{
        (void)state;
        for (unsigned c = 1; c <= XID_CATALOG_LAST; c++) {
                const struct xid_info *x = xid_lookup(c);
                if (!x)
                        fail_msg("Xid %u missing", c);
                if (x->bucket != published[c])
                        fail_msg("Xid %u: bucket %s, NVIDIA's %s", c, xid_bucket_name(x->bucket),
                                 xid_bucket_name(published[c]));
        }
        assert_null(xid_lookup(0));
        assert_null(xid_lookup(XID_CATALOG_LAST + 1));
        assert_null(xid_lookup(999));
        assert_null(xid_lookup(0xffffffffu));
}

/* Sorted, no overlaps, no gaps, every row with words that fit an events.log field, and
 * the class the bucket asks for (vigil's own only where NVIDIA gives none). */
static void test_table_sorted_and_consistent(void **state)
{
        (void)state;
        size_t n;
        const struct xid_info *t = xid_table_all(&n);
        assert_true(n > 0);
        assert_int_equal(t[0].first, 1);
        assert_int_equal(t[n - 1].last, XID_CATALOG_LAST);
        for (size_t i = 0; i < n; i++) {
                assert_true(t[i].first <= t[i].last);
                if (i)
                        assert_int_equal(t[i].first, t[i - 1].last + 1);
                assert_true(t[i].meaning[0] && strlen(t[i].meaning) < 100);
                assert_true(t[i].action[0] && strlen(t[i].action) < 190);
                assert_null(strchr(t[i].meaning, '"'));
                assert_null(strchr(t[i].action, '"'));
                assert_true((unsigned)t[i].bucket < XID_BUCKET_COUNT);
                if (t[i].bucket != XID_BUCKET_NONE && t[i].cls != xid_bucket_class(t[i].bucket))
                        fail_msg("Xid %u: class %s, bucket %s asks %s", t[i].first,
                                 xid_class_name(t[i].cls), xid_bucket_name(t[i].bucket),
                                 xid_class_name(xid_bucket_class(t[i].bucket)));
        }
}

/* The codes the catalog had lacked, and the two it had called "watch". */
static void test_named_codes(void **state)
{
        (void)state;
        static const unsigned reset_gpu[] = {46, 110, 136, 155, 156, 158};
        for (size_t i = 0; i < sizeof(reset_gpu) / sizeof(reset_gpu[0]); i++) {
                const struct xid_info *x = xid_lookup(reset_gpu[i]);
                assert_int_equal(x->bucket, XID_BUCKET_RESET_GPU);
                assert_int_equal(x->cls, XID_CLASS_RESET);
                assert_true(xid_needs_reset(reset_gpu[i]));
                assert_int_equal(xid_class_severity(x->cls), XID_SEV_CRITICAL);
                assert_non_null(strstr(x->action, "reset the GPU"));
        }
        /* Listed without an immediate action: vigil treats them as reset-class. */
        static const unsigned no_bucket_reset[] = {167, 169, 171, 172};
        for (size_t i = 0; i < sizeof(no_bucket_reset) / sizeof(no_bucket_reset[0]); i++) {
                const struct xid_info *x = xid_lookup(no_bucket_reset[i]);
                assert_int_equal(x->bucket, XID_BUCKET_NONE);
                assert_int_equal(x->cls, XID_CLASS_RESET);
                assert_int_equal(xid_class_severity(x->cls), XID_SEV_CRITICAL);
        }
        /* 3: unused, CONTACT_SUPPORT: critical (it should never appear), not a reset. */
        assert_int_equal(xid_lookup(3)->bucket, XID_BUCKET_CONTACT_SUPPORT);
        assert_int_equal(xid_class_severity(xid_lookup(3)->cls), XID_SEV_CRITICAL);
        assert_false(xid_needs_reset(3));
        /* 44 and 137: IGNORE in NVIDIA's catalog. */
        assert_int_equal(xid_lookup(44)->bucket, XID_BUCKET_IGNORE);
        assert_int_equal(xid_lookup(137)->bucket, XID_BUCKET_IGNORE);
        assert_int_equal(xid_class_severity(xid_lookup(137)->cls), XID_SEV_INFO);
        /* 151 restarts the VM, 155 resets the GPU: neither is "watch". */
        assert_int_equal(xid_lookup(151)->bucket, XID_BUCKET_RESTART_VM);
        assert_int_equal(xid_lookup(151)->cls, XID_CLASS_REBOOT);
        assert_int_not_equal(xid_lookup(155)->cls, XID_CLASS_WATCH);
        assert_int_equal(xid_class_severity(xid_lookup(151)->cls), XID_SEV_CRITICAL);
}

static void test_lookup(void **state)
{
        (void)state;
        const struct xid_info *x = xid_lookup(79);
        assert_non_null(x);
        assert_string_equal(x->meaning, "GPU has fallen off the bus");
        assert_int_equal(x->cls, XID_CLASS_REBOOT);
        assert_int_equal(x->bucket, XID_BUCKET_RESTART_BM);
        assert_string_equal(xid_lookup(119)->meaning, "GSP RPC timeout");
        assert_string_equal(xid_lookup(154)->meaning, "GPU recovery action changed");
        assert_int_equal(xid_lookup(63)->cls, XID_CLASS_INFO);
        assert_int_equal(xid_lookup(13)->cls, XID_CLASS_APP);
        /* The NVLink-5 range. */
        for (unsigned c = 144; c <= 150; c++)
                assert_string_equal(xid_lookup(c)->meaning, "NVLink-5 error");
        assert_string_equal(xid_lookup(7)->meaning,
                            "unused on current GPUs (deprecated, or Volta and older)");
}

/* The reset/reboot class, and no other. */
static void test_reset_class(void **state)
{
        (void)state;
        static const unsigned reset[] = {46,  48,  62,  64,  74,  79,  95,  109, 110, 119, 120,
                                         136, 140, 143, 151, 155, 156, 158, 167, 169, 171, 172};
        unsigned n = 0;
        for (unsigned c = 0; c < 1000; c++) {
                bool want = false;
                for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++)
                        want |= reset[i] == c;
                if (xid_needs_reset(c) != want)
                        fail_msg("Xid %u: needs reset %d", c, !want);
                n += xid_lookup(c) != NULL;
        }
        assert_int_equal(n, XID_CATALOG_LAST);
        assert_string_equal(xid_class_name(XID_CLASS_RESET), "reset");
        assert_string_equal(xid_class_name(XID_CLASS_REBOOT), "reboot");
        assert_string_equal(xid_class_name(XID_CLASS_SERVICE), "service");
        assert_string_equal(xid_severity_name(XID_SEV_WARNING), "warning");
        assert_int_equal(xid_class_severity(XID_CLASS_APP), XID_SEV_WARNING);
        assert_int_equal(xid_class_severity(XID_CLASS_WATCH), XID_SEV_WARNING);
        assert_int_equal(xid_class_severity(XID_CLASS_INFO), XID_SEV_INFO);
        assert_string_equal(xid_bucket_name(XID_BUCKET_RESTART_BM), "RESTART_BM");
        assert_string_equal(xid_bucket_name(XID_BUCKET_COUNT), "unknown");
        for (int b = 0; b < XID_BUCKET_COUNT; b++)
                assert_true(xid_bucket_name((enum xid_bucket)b)[0] &&
                            xid_bucket_text((enum xid_bucket)b)[0]);
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
        assert_int_equal(xid_describe(&sb, 173), -ENOENT);
        assert_string_equal(buf, "");
        sb_init_fixed(&sb, buf, sizeof(buf));
        assert_int_equal(xid_describe_bucket(&sb, 79), 0);
        assert_string_equal(buf, "NVIDIA's immediate action: RESTART_BM (restart the bare-metal "
                                 "machine). Severity: critical (reboot).");
        sb_init_fixed(&sb, buf, sizeof(buf));
        assert_int_equal(xid_describe_bucket(&sb, 171), 0);
        assert_string_equal(buf, "NVIDIA's immediate action: none given in the catalog. "
                                 "Severity: critical (reset).");
        sb_init_fixed(&sb, buf, sizeof(buf));
        assert_int_equal(xid_describe_bucket(&sb, 0), -ENOENT);
        assert_string_equal(buf, "");
}

/* The action an Xid event suggests (event_kinds' "from the event"), by the code's class. */
static void test_event_action(void **state)
{
        (void)state;
        assert_int_equal(xid_event_action(79), EA_REBOOT);             /* RESTART_BM */
        assert_int_equal(xid_event_action(48), EA_RESET_GPU);          /* RESET_GPU */
        assert_int_equal(xid_event_action(13), EA_RESTART_WORKLOAD);   /* RESTART_APP */
        assert_int_equal(xid_event_action(162), EA_NONE);              /* informational */
        assert_int_equal(xid_event_action(9999), EA_INSPECT_HARDWARE); /* not listed */
        size_t n;
        const struct xid_info *t = xid_table_all(&n);
        for (size_t i = 0; i < n; i++) {
                enum event_action a = xid_event_action(t[i].first);
                assert_true(a != EA_FROM_EVENT && a < EA_COUNT);
                assert_int_equal(a == EA_RESET_GPU, t[i].cls == XID_CLASS_RESET);
                assert_int_equal(a == EA_REBOOT, t[i].cls == XID_CLASS_REBOOT);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_every_code_against_published),
            cmocka_unit_test(test_table_sorted_and_consistent),
            cmocka_unit_test(test_named_codes),
            cmocka_unit_test(test_lookup),
            cmocka_unit_test(test_reset_class),
            cmocka_unit_test(test_describe),
            cmocka_unit_test(test_event_action),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
