/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the expected GPU count (core/gpu_count.c), its place in the run state file
 * (core/runstate.c), the option that overrides it (core/options.c) and the finding its
 * events.log lines make (core/findings_events.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/findings.h"
#include "core/gpu_count.h"
#include "core/options.h"
#include "core/runstate.h"

static void test_state_keeps_gpus(void **state)
{
        (void)state;
        struct runstate st = {.pid = 7, .gpus_known = true, .gpus = 2, .nbus = 2};
        struct runstate back;
        char buf[RUNSTATE_MAX_BYTES], dir[64];
        struct strbuf sb;
        snprintf(st.gpu_bus[0], AER_BDF_LEN, "0000:01:00.0");
        snprintf(st.gpu_bus[1], AER_BDF_LEN, "0000:41:00.0");
        sb_init_fixed(&sb, buf, sizeof(buf));
        runstate_format(&st, &sb);
        assert_non_null(strstr(sb.buf, "\ngpus=2\n"));
        assert_non_null(strstr(sb.buf, "\ngpu_bus=0000:01:00.0,0000:41:00.0\n"));
        assert_int_equal(runstate_parse(sb.buf, sb.len, &back), 0);
        assert_true(back.gpus_known);
        assert_int_equal(back.gpus, 2);
        assert_int_equal(back.nbus, 2);
        assert_string_equal(back.gpu_bus[1], "0000:41:00.0");
        /* Through the file, as a restart reads it. */
        snprintf(dir, sizeof(dir), "/tmp/vigil-gpucount-XXXXXX");
        assert_non_null(mkdtemp(dir));
        assert_int_equal(runstate_save(dir, &st), 0);
        memset(&back, 0, sizeof(back));
        assert_int_equal(runstate_load(dir, &back), 0);
        assert_true(back.gpus_known);
        assert_int_equal(back.gpus, 2);
        char path[128];
        snprintf(path, sizeof(path), "%s/%s", dir, RUNSTATE_FILE);
        unlink(path);
        rmdir(dir);
        /* No count: no line, and none read back (an older state file). */
        st.gpus_known = false;
        st.nbus = 0;
        sb_init_fixed(&sb, buf, sizeof(buf));
        runstate_format(&st, &sb);
        assert_null(strstr(sb.buf, "gpus="));
        assert_null(strstr(sb.buf, "gpu_bus="));
        assert_int_equal(runstate_parse(sb.buf, sb.len, &back), 0);
        assert_false(back.gpus_known);
        assert_int_equal(back.nbus, 0);
        /* gpus=0 is a count (a machine whose GPUs were all declared gone). */
        assert_int_equal(runstate_parse("gpus=0\n", 7, &back), 0);
        assert_true(back.gpus_known);
        assert_int_equal(back.gpus, 0);
}

static void test_state_damage(void **state)
{
        (void)state;
        struct runstate st;
        /* A bad count is ignored; the rest is read. */
        const char *t = "pid=3\ngpus=-1\n";
        assert_int_equal(runstate_parse(t, strlen(t), &st), 0);
        assert_false(st.gpus_known);
        t = "pid=3\ngpus=99999\n";
        assert_int_equal(runstate_parse(t, strlen(t), &st), 0);
        assert_false(st.gpus_known);
        t = "pid=3\ngpus=2x\n";
        assert_int_equal(runstate_parse(t, strlen(t), &st), 0);
        assert_false(st.gpus_known);
        /* Bad bus entries are left out, good ones kept; NVML's form is read too. */
        t = "gpu_bus=junk,00000000:3B:00.0,,0000:01:00.0\n";
        assert_int_equal(runstate_parse(t, strlen(t), &st), 0);
        assert_int_equal(st.nbus, 2);
        assert_string_equal(st.gpu_bus[0], "0000:3b:00.0");
        assert_string_equal(st.gpu_bus[1], "0000:01:00.0");
        /* At most RUNSTATE_MAX_BUS kept. */
        char many[RUNSTATE_MAX_BYTES] = "gpu_bus=";
        for (unsigned i = 0; i < RUNSTATE_MAX_BUS + 4; i++) {
                size_t n = strlen(many);
                snprintf(many + n, sizeof(many) - n, "0000:%02x:%02x.0,", i / 32 + 1, i % 32);
        }
        assert_int_equal(runstate_parse(many, strlen(many), &st), 0);
        assert_int_equal(st.nbus, RUNSTATE_MAX_BUS);
}

static void test_expect(void **state)
{
        (void)state;
        struct gpu_expect e;
        /* First start: NVML's count now. */
        e = gpu_count_expect(GPU_COUNT_AUTO, false, 0, 2);
        assert_int_equal(e.from, GPU_EXPECT_NOW);
        assert_int_equal(e.expected, 2);
        /* A restart with a GPU gone: the remembered count. */
        e = gpu_count_expect(GPU_COUNT_AUTO, true, 2, 1);
        assert_int_equal(e.from, GPU_EXPECT_STATE);
        assert_int_equal(e.expected, 2);
        /* The driver gone (NVML absent or failing): still the remembered count. */
        e = gpu_count_expect(GPU_COUNT_AUTO, true, 2, 0);
        assert_int_equal(e.from, GPU_EXPECT_STATE);
        assert_int_equal(e.expected, 2);
        /* The key wins over the state, either way. */
        e = gpu_count_expect(1, true, 2, 1);
        assert_int_equal(e.from, GPU_EXPECT_CONFIG);
        assert_int_equal(e.expected, 1);
        e = gpu_count_expect(8, true, 2, 2);
        assert_int_equal(e.from, GPU_EXPECT_CONFIG);
        assert_int_equal(e.expected, 8);
        /* expected-gpus = 0: no check. */
        e = gpu_count_expect(0, true, 2, 1);
        assert_int_equal(e.from, GPU_EXPECT_NONE);
        /* A machine without NVIDIA that never had a GPU counted: nothing expected. */
        e = gpu_count_expect(GPU_COUNT_AUTO, false, 0, 0);
        assert_int_equal(e.from, GPU_EXPECT_NONE);
        e = gpu_count_expect(GPU_COUNT_AUTO, true, 0, 0);
        assert_int_equal(e.from, GPU_EXPECT_NONE);
        /* --gpu none: NVML not asked, nothing checked, whatever is remembered. */
        e = gpu_count_expect(GPU_COUNT_AUTO, true, 2, -1);
        assert_int_equal(e.from, GPU_EXPECT_NONE);
        e = gpu_count_expect(2, true, 2, -1);
        assert_int_equal(e.from, GPU_EXPECT_NONE);
        assert_string_equal(gpu_expect_from_name(GPU_EXPECT_STATE), "state");
        assert_string_equal(gpu_expect_from_name(GPU_EXPECT_NOW), "first-start");
}

static void test_remember(void **state)
{
        (void)state;
        bool known = true;
        /* The most ever counted: a GPU gone does not lower it, one added raises it. */
        assert_int_equal(gpu_count_remember(false, 0, 2, &known), 2);
        assert_true(known);
        assert_int_equal(gpu_count_remember(true, 2, 1, &known), 2);
        assert_int_equal(gpu_count_remember(true, 2, 0, &known), 2);
        assert_int_equal(gpu_count_remember(true, 2, -1, &known), 2);
        assert_int_equal(gpu_count_remember(true, 2, 4, &known), 4);
        assert_true(known);
        /* Nothing counted yet: nothing to keep. */
        assert_int_equal(gpu_count_remember(false, 0, 0, &known), 0);
        assert_false(known);
        assert_int_equal(gpu_count_remember(false, 0, -1, &known), 0);
        assert_false(known);
}

static void test_answering_and_steps(void **state)
{
        (void)state;
        struct frame *f = calloc(1, sizeof(*f));
        assert_non_null(f);
        f->ngpus = 2;
        f->gpus[0].present = f->gpus[1].present = true;
        assert_int_equal(gpu_count_answering(2, f), 2);
        /* --gpu 1 on a machine of 3: the unsampled GPUs answer by NVML's count. */
        assert_int_equal(gpu_count_answering(3, f), 3);
        /* Lost at run time (a failure streak): not answering. */
        f->gpus[1].consecutive_failures = 4;
        assert_int_equal(gpu_count_answering(2, f), 1);
        f->gpus[0].consecutive_failures = 1;
        assert_int_equal(gpu_count_answering(2, f), 0);
        assert_int_equal(gpu_count_answering(1, f), 0); /* never below 0 */
        free(f);

        struct gpu_count_state st = {0};
        struct gpu_expect e = {GPU_EXPECT_STATE, 2};
        /* Short from the start: one MISSING, then quiet until all are back. */
        assert_int_equal(gpu_count_step(&st, &e, 1), GPU_COUNT_MISSING);
        assert_int_equal(gpu_count_step(&st, &e, 1), GPU_COUNT_SAME);
        assert_int_equal(gpu_count_step(&st, &e, 0), GPU_COUNT_SAME);
        assert_int_equal(gpu_count_step(&st, &e, 2), GPU_COUNT_BACK);
        assert_int_equal(gpu_count_step(&st, &e, 3), GPU_COUNT_SAME);
        assert_int_equal(gpu_count_step(&st, &e, 1), GPU_COUNT_MISSING);
        /* Whole at the start: nothing said. */
        struct gpu_count_state st2 = {0};
        assert_int_equal(gpu_count_step(&st2, &e, 2), GPU_COUNT_SAME);
        /* No expectation: never missing. */
        struct gpu_expect none = {GPU_EXPECT_NONE, 0};
        struct gpu_count_state st3 = {0};
        assert_int_equal(gpu_count_step(&st3, &none, 0), GPU_COUNT_SAME);
}

static int parse(struct vigil_options *o, int argc, const char **argv)
{
        options_defaults(o);
        return options_parse(o, argc, (char **)argv);
}

static void test_option(void **state)
{
        (void)state;
        struct vigil_options o;
        char err[200];
        options_defaults(&o);
        assert_int_equal(o.expected_gpus, GPU_COUNT_AUTO);
        const char *a1[] = {"vigil", "--expected-gpus", "4"};
        assert_int_equal(parse(&o, 3, a1), 0);
        assert_int_equal(o.expected_gpus, 4);
        const char *a2[] = {"vigil", "--expected-gpus=0"};
        assert_int_equal(parse(&o, 2, a2), 0);
        assert_int_equal(o.expected_gpus, 0);
        assert_int_equal(options_set(&o, "expected-gpus", "auto", err, sizeof(err)), 0);
        assert_int_equal(o.expected_gpus, GPU_COUNT_AUTO);
        assert_int_equal(options_set(&o, "expected-gpus", "8", err, sizeof(err)), 0);
        assert_int_equal(o.expected_gpus, 8);
        static const char *const bad[] = {"-1", "two", "", "1025", "2.5", "99999999999999999999"};
        for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                assert_int_equal(options_set(&o, "expected-gpus", bad[i], err, sizeof(err)), -22);
                assert_non_null(strstr(err, "expected-gpus"));
                assert_int_equal(o.expected_gpus, 8); /* untouched */
        }
}

static void feed(struct findings *f, double t, const char *line)
{
        findings_feed_event(f, t, line, strlen(line));
}

static void test_finding(void **state)
{
        (void)state;
        struct findings *f = calloc(1, sizeof(*f));
        char buf[2048];
        struct strbuf sb;
        assert_non_null(f);
        findings_init(f);
        feed(f, 1000, "type=GPU_COUNT state=missing answering=1 expected=2 from=state");
        const struct finding *x = findings_find(f, FINDING_GPU_MISSING, "host", NULL);
        assert_non_null(x);
        assert_true(x->alarm);
        assert_false(findings_clean(f));
        sb_init_fixed(&sb, buf, sizeof(buf));
        findings_line(x, false, &sb);
        assert_non_null(strstr(sb.buf, "GPUs missing, still missing"));
        assert_non_null(strstr(sb.buf, "1 of 2 expected GPUs answer"));
        assert_non_null(strstr(sb.buf, "vigil.state"));
        feed(f, 1012.5, "type=GPU_COUNT state=back answering=2 expected=2 from=state");
        sb_init_fixed(&sb, buf, sizeof(buf));
        findings_line(x, false, &sb);
        assert_non_null(strstr(sb.buf, "GPUs missing for 12.5 s in all, all back"));
        assert_true(isnan(x->open_t));
        /* The key's expectation is named as such. */
        feed(f, 2000, "type=GPU_COUNT state=missing answering=0 expected=4 from=config");
        sb_init_fixed(&sb, buf, sizeof(buf));
        findings_line(x, false, &sb);
        assert_non_null(strstr(sb.buf, "0 of 4 expected GPUs answer (expected: expected-gpus)"));
        free(f);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_state_keeps_gpus),
            cmocka_unit_test(test_state_damage),
            cmocka_unit_test(test_expect),
            cmocka_unit_test(test_remember),
            cmocka_unit_test(test_answering_and_steps),
            cmocka_unit_test(test_option),
            cmocka_unit_test(test_finding),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
