/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the plug-in registry (core/registry.c) spells every runtime name one way:
 * lower-case letters, digits and '-' (as the options and files users see), no two alike. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/vigil.h"
#include "daemon/registry.h"

#define MAX_NAMES 64

struct names {
        const char *v[MAX_NAMES];
        size_t n;
};

/* One word of [a-z0-9] pieces joined by single '-'. */
static bool spelled_right(const char *s)
{
        if (!s || !*s || s[0] == '-')
                return false;
        for (const char *p = s; *p; p++) {
                bool ok = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-';
                if (!ok || (*p == '-' && (p[1] == '-' || p[1] == '\0')))
                        return false;
        }
        return true;
}

static void add(struct names *ns, const char *name)
{
        if (!spelled_right(name))
                fail_msg("plug-in name \"%s\" is not lower-case words joined by '-'", name);
        for (size_t i = 0; i < ns->n; i++)
                if (!strcmp(ns->v[i], name))
                        fail_msg("plug-in name \"%s\" is used twice", name);
        assert_true(ns->n < MAX_NAMES);
        ns->v[ns->n++] = name;
}

static void test_names(void **state)
{
        (void)state;
        struct names ns = {.n = 0};
        size_t sources = 0, detectors = 0, sinks = 0;
        for (size_t i = 0; vigil_sources[i]; i++, sources++)
                add(&ns, vigil_sources[i]->name);
        for (size_t i = 0; vigil_detectors[i]; i++, detectors++)
                add(&ns, vigil_detectors[i]->name);
        for (size_t i = 0; vigil_sinks[i]; i++, sinks++)
                add(&ns, vigil_sinks[i]->name);
        assert_true(sources > 0 && detectors > 0 && sinks > 0);
}

static void test_spelling_rule(void **state)
{
        (void)state;
        assert_true(spelled_right("proc-stat"));
        assert_true(spelled_right("kmsg"));
        assert_false(spelled_right("proc_stat"));
        assert_false(spelled_right("Proc-stat"));
        assert_false(spelled_right("-stat"));
        assert_false(spelled_right("stat-"));
        assert_false(spelled_right("proc--stat"));
        assert_false(spelled_right(""));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_names),
            cmocka_unit_test(test_spelling_rule),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
