/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the dashboard's sentence for an events.log line of every kind vigil
 * writes (web/dashboard_events.c, from the rows of core/event_kinds.c). The lines are
 * as their emitters write them; a kind with no sentence would show its raw line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "collect/nvml_api.h"
#include "detect/gpu_events.h"
#include "detect/xid_catalog.h"
#include "web/dashboard_events.h"
#include "util/strbuf.h"

#include "event_lines.h"

static void test_sentences(void **state)
{
        (void)state;
        char buf[1024];
        unsigned wrong = 0;
        for (size_t i = 0; i < N_EVENT_CASES; i++) {
                struct strbuf sb;
                sb_init_fixed(&sb, buf, sizeof(buf));
                dash_event_sentence(event_cases[i].line, &sb);
                if (strcmp(buf, event_cases[i].sentence)) {
                        print_error("line:     %s\nexpected: %s\ngot:      %s\n",
                                    event_cases[i].line, event_cases[i].sentence, buf);
                        wrong++;
                }
        }
        assert_int_equal(wrong, 0);
}

/* Every code of the catalog, and one it does not list, as the NVML event listener
 * writes its line: the sentence is the catalog's description of the code. */
static void test_every_xid(void **state)
{
        (void)state;
        char line[1024], got[1024], want[1024];
        for (unsigned code = 1; code <= XID_CATALOG_LAST + 1; code++) {
                struct nvml_event e = {.type = NVML_EVENT_XID_CRITICAL_ERROR, .data = code};
                struct strbuf sb;
                sb_init_fixed(&sb, line, sizeof(line));
                gpu_event_line(&sb, 3, &e);
                sb_init_fixed(&sb, got, sizeof(got));
                dash_event_sentence(line, &sb);
                sb_init_fixed(&sb, want, sizeof(want));
                sb_puts(&sb, "GPU 3: ");
                if (xid_describe(&sb, code) < 0)
                        sb_printf(&sb, "Xid %u (" XID_NOT_IN_CATALOG ")", code);
                assert_string_equal(got, want);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_sentences),
            cmocka_unit_test(test_every_xid),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
