/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the machine's hardware identity (collect/hw_identity.c) on the fixture
 * trees, and the values firmware leaves unset. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "collect/hw_identity.h"
#include "test_fixtures.h"

static void test_fixtures(void **state)
{
        (void)state;
        char root[4096];
        struct hw_identity hw;
        test_repo_path(root, sizeof(root), "tests/fixtures/pi4");
        assert_int_equal(hw_identity_read(root, &hw), 0);
        assert_string_equal(hw.id, "10000000a1b2c3d4");
        assert_string_equal(hw.source, "rpi_serial");
        test_repo_path(root, sizeof(root), "tests/fixtures/x86-server");
        assert_int_equal(hw_identity_read(root, &hw), 0);
        assert_string_equal(hw.id, "4c4c4544-0048-3510-8052-b4c04f4a3732");
        assert_string_equal(hw.source, "dmi_product_uuid");
        /* No source at all. */
        test_repo_path(root, sizeof(root), "tests/fixtures/broken");
        assert_int_equal(hw_identity_read(root, &hw), -ENOENT);
        assert_string_equal(hw.id, "");
        assert_string_equal(hw.source, "");
}

static void test_placeholders(void **state)
{
        (void)state;
        static const char *const unset[] = {
            "",
            "To Be Filled By O.E.M.",
            "Default string",
            "Not Specified",
            "0000000000000000",
            "00000000-0000-0000-0000-000000000000",
            "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
            "03000200-0400-0500-0006-000700080009",
            "00:00:00:00:00:00",
            "System Serial Number",
        };
        for (size_t i = 0; i < sizeof(unset) / sizeof(unset[0]); i++)
                assert_true(hw_identity_placeholder(unset[i]));
        assert_false(hw_identity_placeholder("10000000a1b2c3d4"));
        assert_false(hw_identity_placeholder("h5rj2y2"));
        assert_false(hw_identity_placeholder("b0:26:28:1a:2b:3c"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_fixtures),
            cmocka_unit_test(test_placeholders),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
