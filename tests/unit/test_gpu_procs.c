/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the processes on a GPU (collect/nvml_procs.c, core/gpu_procs.c): NVML's
 * count-then-fill handshake on a fake call, the names from /proc under a root, and the
 * text of a list. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/nvml_procs.h"
#include "core/gpu_procs.h"

/* The fake call: `running` processes (pids 1000, 1001, ...); after the first call
 * `grow_to` of them (a job starting between the calls); `answer` replaces the whole
 * handshake when set. */
static struct {
        unsigned running, grow_to, calls;
        unsigned asked[8]; /* *infoCount at each call */
        bool null_infos[8];
        nvmlReturn_t answer;
} fake;

static nvmlReturn_t fake_list(nvmlDevice_t dev, unsigned int *count, nvmlProcessInfo_t *infos)
{
        (void)dev;
        unsigned k = fake.calls++;
        if (k < 8) {
                fake.asked[k] = *count;
                fake.null_infos[k] = infos == NULL;
        }
        if (fake.answer)
                return fake.answer;
        unsigned n = fake.running;
        if (k > 0 && fake.grow_to)
                n = fake.grow_to;
        if (*count < n) {
                *count = n;
                return NVML_ERROR_INSUFFICIENT_SIZE;
        }
        for (unsigned i = 0; i < n; i++) {
                infos[i].pid = 1000 + i;
                infos[i].usedGpuMemory = i == 1 ? NVML_VALUE_NOT_AVAILABLE_ULL : (i + 1) << 20;
                infos[i].gpuInstanceId = infos[i].computeInstanceId = 0xffffffffu;
        }
        *count = n;
        return NVML_SUCCESS;
}

static int reset(void **state)
{
        (void)state;
        memset(&fake, 0, sizeof(fake));
        return 0;
}

static void test_handshake(void **state)
{
        (void)state;
        struct gpu_proc_list l = {0};
        fake.running = 3;
        assert_int_equal(nvml_procs_query(fake_list, NULL, GPU_PROC_COMPUTE, &l), NVML_SUCCESS);
        assert_int_equal(fake.calls, 2);
        assert_int_equal(fake.asked[0], 0); /* the count first, with no array */
        assert_true(fake.null_infos[0]);
        assert_true(fake.asked[1] >= 3); /* then room for them and a margin */
        assert_false(fake.null_infos[1]);
        assert_true(l.supported[GPU_PROC_COMPUTE]);
        assert_false(l.supported[GPU_PROC_GRAPHICS]);
        assert_int_equal(l.count[GPU_PROC_COMPUTE], 3);
        assert_int_equal(l.n, 3);
        assert_int_equal(l.p[0].pid, 1000);
        assert_int_equal(l.p[0].type, GPU_PROC_COMPUTE);
        assert_true(l.p[0].used_bytes == 1048576.0);
        assert_true(isnan(l.p[1].used_bytes)); /* "not available" is missing, not huge */
        assert_int_equal(l.p[2].pid, 1002);
}

static void test_none_running(void **state)
{
        (void)state;
        struct gpu_proc_list l = {0};
        assert_int_equal(nvml_procs_query(fake_list, NULL, GPU_PROC_GRAPHICS, &l), NVML_SUCCESS);
        assert_int_equal(fake.calls, 1);
        assert_true(l.supported[GPU_PROC_GRAPHICS]);
        assert_int_equal(l.count[GPU_PROC_GRAPHICS], 0);
        assert_int_equal(l.n, 0);
}

static void test_grows_between_calls(void **state)
{
        (void)state;
        struct gpu_proc_list l = {0};
        fake.running = 2;
        fake.grow_to = 40; /* past the margin: a third call */
        assert_int_equal(nvml_procs_query(fake_list, NULL, GPU_PROC_COMPUTE, &l), NVML_SUCCESS);
        assert_int_equal(fake.calls, 3);
        assert_true(fake.asked[2] >= 40);
        assert_int_equal(l.count[GPU_PROC_COMPUTE], 40);
        assert_int_equal(l.n, VIGIL_GPU_PROCS_MAX); /* listed as far as the list holds */
        assert_int_equal(l.p[VIGIL_GPU_PROCS_MAX - 1].pid, 1000 + VIGIL_GPU_PROCS_MAX - 1);
}

static void test_too_many_counted(void **state)
{
        (void)state;
        struct gpu_proc_list l = {0};
        fake.running = NVML_PROCS_QUERY_MAX + 100;
        assert_int_equal(nvml_procs_query(fake_list, NULL, GPU_PROC_COMPUTE, &l), NVML_SUCCESS);
        assert_true(fake.calls <= 3);
        assert_true(l.supported[GPU_PROC_COMPUTE]);
        assert_int_equal(l.count[GPU_PROC_COMPUTE], NVML_PROCS_QUERY_MAX + 100);
        assert_int_equal(l.n, 0);
}

static void test_errors(void **state)
{
        (void)state;
        struct gpu_proc_list l = {0};
        fake.answer = NVML_ERROR_NOT_SUPPORTED;
        assert_int_equal(nvml_procs_query(fake_list, NULL, GPU_PROC_COMPUTE, &l),
                         NVML_ERROR_NOT_SUPPORTED);
        assert_false(l.supported[GPU_PROC_COMPUTE]);
        fake.answer = NVML_ERROR_GPU_IS_LOST;
        assert_int_equal(nvml_procs_query(fake_list, NULL, GPU_PROC_COMPUTE, &l),
                         NVML_ERROR_GPU_IS_LOST);
        assert_int_equal(nvml_procs_query(NULL, NULL, GPU_PROC_COMPUTE, &l),
                         NVML_ERROR_FUNCTION_NOT_FOUND);
        assert_int_equal(l.n, 0);
}

static void test_both_types_share_the_list(void **state)
{
        (void)state;
        struct gpu_proc_list l = {0};
        fake.running = 10;
        nvml_procs_query(fake_list, NULL, GPU_PROC_COMPUTE, &l);
        fake.calls = 0;
        fake.running = 10;
        nvml_procs_query(fake_list, NULL, GPU_PROC_GRAPHICS, &l);
        assert_int_equal(l.count[GPU_PROC_COMPUTE], 10);
        assert_int_equal(l.count[GPU_PROC_GRAPHICS], 10);
        assert_int_equal(l.n, VIGIL_GPU_PROCS_MAX);
        assert_int_equal(l.p[10].type, GPU_PROC_GRAPHICS);
        assert_int_equal(l.p[10].pid, 1000);
}

static void put(const char *dir, const char *name, const char *data, size_t n)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        FILE *fp = fopen(path, "w");
        assert_non_null(fp);
        assert_int_equal(fwrite(data, 1, n, fp), n);
        fclose(fp);
}

static void test_names_from_proc(void **state)
{
        (void)state;
        char root[] = "/tmp/vigil-gpu-procs.XXXXXX", dir[256], cmd[200];
        assert_non_null(mkdtemp(root));
        snprintf(dir, sizeof(dir), "%s/proc", root);
        assert_int_equal(mkdir(dir, 0755), 0);
        snprintf(dir, sizeof(dir), "%s/proc/42", root);
        assert_int_equal(mkdir(dir, 0755), 0);
        put(dir, "comm", "my prog\n", 8);
        put(dir, "cmdline", "a\0b c\0\x01x\0", 9);
        snprintf(dir, sizeof(dir), "%s/proc/43", root);
        assert_int_equal(mkdir(dir, 0755), 0);
        put(dir, "comm", "long\n", 5);
        memset(cmd, 'z', sizeof(cmd));
        put(dir, "cmdline", cmd, sizeof(cmd)); /* longer than the list keeps */
        struct gpu_proc_list l = {.valid = true, .n = 3};
        l.p[0].pid = 42;
        l.p[1].pid = 44; /* not in this /proc */
        snprintf(l.p[1].name, sizeof(l.p[1].name), "stale");
        l.p[2].pid = 43;
        gpu_procs_fill_names(root, &l);
        assert_string_equal(l.p[0].name, "my prog");
        assert_string_equal(l.p[0].cmdline, "a b c ?x");
        assert_string_equal(l.p[1].name, "");
        assert_string_equal(l.p[1].cmdline, "");
        assert_string_equal(l.p[2].name, "long");
        assert_int_equal(strlen(l.p[2].cmdline), VIGIL_GPU_PROC_CMDLN - 1);
        char rm[300];
        snprintf(rm, sizeof(rm), "rm -rf '%s'", root);
        assert_int_equal(system(rm), 0);
}

static void test_format(void **state)
{
        (void)state;
        char buf[2048];
        struct strbuf sb;
        struct gpu_proc_list l = {0};
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_procs_format(&sb, &l);
        assert_string_equal(buf, "(not recorded)\n");
        l.valid = true;
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_procs_format(&sb, &l);
        assert_string_equal(buf, "(none)\n");
        l.count[GPU_PROC_COMPUTE] = 3;
        l.n = 2;
        l.p[0] =
            (struct gpu_proc){.pid = 4242, .type = GPU_PROC_COMPUTE, .used_bytes = 8589934592.0};
        snprintf(l.p[0].name, sizeof(l.p[0].name), "python3");
        snprintf(l.p[0].cmdline, sizeof(l.p[0].cmdline), "python3 train.py");
        l.p[1] = (struct gpu_proc){.pid = 7, .type = GPU_PROC_GRAPHICS, .used_bytes = NAN};
        snprintf(l.p[1].name, sizeof(l.p[1].name), "a b\"c");
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_procs_format(&sb, &l);
        assert_string_equal(buf, "      PID TYPE     NAME               GPU MEM  COMMAND\n"
                                 "     4242 compute  python3           8192 MiB  python3 train.py\n"
                                 "        7 graphics a b\"c                  n/a  (not in /proc)\n"
                                 "  (1 more not listed)\n");
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_procs_format_short(&sb, &l);
        assert_string_equal(buf, "4242:python3,7:a_b_c"); /* one token for events.log */
        assert_string_equal(gpu_proc_type_name(GPU_PROC_GRAPHICS), "graphics");
        assert_string_equal(gpu_proc_type_name((enum gpu_proc_type)9), "unknown");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup(test_handshake, reset),
            cmocka_unit_test_setup(test_none_running, reset),
            cmocka_unit_test_setup(test_grows_between_calls, reset),
            cmocka_unit_test_setup(test_too_many_counted, reset),
            cmocka_unit_test_setup(test_errors, reset),
            cmocka_unit_test_setup(test_both_types_share_the_list, reset),
            cmocka_unit_test_setup(test_names_from_proc, reset),
            cmocka_unit_test_setup(test_format, reset),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
