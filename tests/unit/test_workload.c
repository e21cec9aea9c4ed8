/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: a GPU process's workload from its cgroup path (core/workload.c) in each
 * layout, real paths as the kubelet (systemd and cgroupfs drivers), slurmd's cgroup
 * plugin (v1 and v2) and systemd write them; the pod's name from the node's pod log
 * directories and the whole fill on the fixture root tests/fixtures/workloads
 * (collect/nvml_procs.c); the process table's and events.log's text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "collect/nvml_procs.h"
#include "core/gpu_procs.h"
#include "core/workload.h"
#include "test_fixtures.h"

#define UID1 "4c8a0e3e-6f1b-4a55-9d6c-2b7e5f3a1c90"
#define UID2 "9b2d7c41-0e8f-4d3a-a5b6-71c2e9f04d18"
#define CID1 "7d3f8a9b2c1e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a"
#define CID2 "e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7"

static struct workload of(const char *text)
{
        struct workload w;
        memset(&w, 0x5a, sizeof(w)); /* every field is written */
        workload_from_cgroup(text, strlen(text), &w);
        return w;
}

static const char *fmt(const struct workload *w)
{
        static char buf[256];
        struct strbuf sb;
        sb_init_fixed(&sb, buf, sizeof(buf));
        workload_format(&sb, w);
        return buf;
}

/* Kubernetes: the systemd driver (cgroup v2, Burstable and Guaranteed, containerd and
 * CRI-O) and the cgroupfs driver (cgroup v1, several hierarchies). */
static void test_pods(void **state)
{
        (void)state;
        struct workload w = of("0::/kubepods.slice/kubepods-burstable.slice/"
                               "kubepods-burstable-pod4c8a0e3e_6f1b_4a55_9d6c_2b7e5f3a1c90.slice/"
                               "cri-containerd-" CID1 ".scope\n");
        assert_int_equal(w.kind, WL_POD);
        assert_string_equal(w.id, UID1);
        assert_string_equal(w.sub, "7d3f8a9b2c1e");
        assert_string_equal(w.name, "");
        assert_string_equal(fmt(&w), "pod::" UID1 ":7d3f8a9b2c1e");
        w = of("0::/kubepods.slice/kubepods-pod9b2d7c41_0e8f_4d3a_a5b6_71c2e9f04d18.slice/"
               "crio-" CID2 ".scope\n");
        assert_int_equal(w.kind, WL_POD);
        assert_string_equal(w.id, UID2);
        assert_string_equal(w.sub, "e1f2a3b4c5d6");
        w = of("12:memory:/kubepods/burstable/pod" UID1 "/" CID1 "\n"
               "11:cpu,cpuacct:/kubepods/burstable/pod" UID1 "/" CID1 "\n"
               "1:name=systemd:/kubepods/burstable/pod" UID1 "/" CID1 "\n0::/\n");
        assert_int_equal(w.kind, WL_POD);
        assert_string_equal(w.id, UID1);
        assert_string_equal(w.sub, "7d3f8a9b2c1e");
        /* the pod's own cgroup (a pause-less process in it), no container */
        w = of("0::/kubepods.slice/kubepods-besteffort.slice/"
               "kubepods-besteffort-pod4c8a0e3e_6f1b_4a55_9d6c_2b7e5f3a1c90.slice\n");
        assert_int_equal(w.kind, WL_POD);
        assert_string_equal(w.sub, "");
        /* not a UID: nothing taken from it */
        w = of("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podXYZ.slice/x\n");
        assert_int_equal(w.kind, WL_NONE);
}

/* Slurm: v1 (the memory hierarchy's path, a systemd one naming slurmd beside it), v2
 * (slurmstepd.scope), several slurmd on one host (/slurm_NODE), the batch step. */
static void test_slurm(void **state)
{
        (void)state;
        struct workload w = of("1:name=systemd:/system.slice/slurmd.service\n"
                               "12:memory:/slurm/uid_1000/job_4242/step_0/task_0\n"
                               "4:cpuset:/slurm/uid_1000/job_4242/step_0\n");
        assert_int_equal(w.kind, WL_SLURM);
        assert_string_equal(w.id, "4242");
        assert_string_equal(w.sub, "0");
        assert_string_equal(fmt(&w), "slurm:4242.0");
        w = of("0::/system.slice/slurmstepd.scope/job_4243/step_batch/user/task_0\n");
        assert_int_equal(w.kind, WL_SLURM);
        assert_string_equal(fmt(&w), "slurm:4243.batch");
        w = of("5:memory:/slurm_node07/uid_0/job_17/step_extern\n");
        assert_string_equal(fmt(&w), "slurm:17.extern");
        w = of("0::/system.slice/slurmstepd.scope/job_4243\n"); /* the job, no step */
        assert_string_equal(fmt(&w), "slurm:4243");
        w = of("0::/system.slice/slurmstepd.scope/job_x1/step_0\n"); /* not a job number */
        assert_int_equal(w.kind, WL_UNIT);
        assert_string_equal(fmt(&w), "unit:slurmstepd.scope");
}

/* systemd units, the root cgroup, a container outside Kubernetes, damaged text. */
static void test_units_and_none(void **state)
{
        (void)state;
        struct workload w = of("0::/system.slice/ollama.service\n");
        assert_string_equal(fmt(&w), "unit:ollama.service");
        w = of("0::/user.slice/user-1000.slice/session-3.scope\n");
        assert_string_equal(fmt(&w), "unit:session-3.scope");
        w = of("0::/user.slice/user-1000.slice/user@1000.service/app.slice/"
               "app-gnome-firefox-4711.scope\n");
        assert_string_equal(fmt(&w), "unit:app-gnome-firefox-4711.scope");
        w = of("0::/\n");
        assert_int_equal(w.kind, WL_NONE);
        assert_string_equal(fmt(&w), "-");
        w = of("0::/system.slice/docker-" CID1 ".scope\n");
        assert_int_equal(w.kind, WL_NONE);
        w = of("garbage without colons\n::\n0:\n");
        assert_int_equal(w.kind, WL_NONE);
        w = of("0::/system.slice/we ird\x01.service\n"); /* one token whatever it holds */
        assert_string_equal(fmt(&w), "unit:we_ird_.service");
}

/* The pod's "namespace/name" from a pod log directory's name. */
static void test_pod_dir(void **state)
{
        (void)state;
        struct workload w = of("0::/kubepods/pod" UID1 "/" CID1 "\n");
        assert_false(workload_pod_dir_matches(&w, "ml-team_train-0_" UID2));
        assert_false(workload_pod_dir_matches(&w, "_train-0_" UID1));
        assert_false(workload_pod_dir_matches(&w, UID1));
        assert_true(workload_pod_dir_matches(&w, "ml-team_train-0_" UID1));
        assert_string_equal(w.name, "ml-team/train-0");
        assert_string_equal(fmt(&w), "pod:ml-team/train-0:" UID1 ":7d3f8a9b2c1e");
}

/* The whole fill on the fixture root: each process's workload and pod name; the table
 * and the events.log token. */
static void test_fixture_root(void **state)
{
        (void)state;
        char root[4096];
        test_repo_path(root, sizeof(root), "tests/fixtures/workloads");
        struct gpu_proc_list l;
        memset(&l, 0, sizeof(l));
        l.valid = true;
        const uint32_t pids[] = {4242, 7171, 5151, 5252, 6161, 8181, 9999};
        for (unsigned i = 0; i < sizeof(pids) / sizeof(pids[0]); i++) {
                l.p[l.n].pid = pids[i];
                l.p[l.n].used_bytes = 1048576;
                l.n++;
        }
        l.count[GPU_PROC_COMPUTE] = l.n;
        gpu_procs_fill_names(root, &l);
        assert_string_equal(fmt(&l.p[0].work), "pod:ml-team/train-0:" UID1 ":7d3f8a9b2c1e");
        assert_string_equal(fmt(&l.p[1].work), "pod::" UID2 ":e1f2a3b4c5d6"); /* no log dir */
        assert_string_equal(fmt(&l.p[2].work), "slurm:4242.0");
        assert_string_equal(fmt(&l.p[3].work), "slurm:4243.batch");
        assert_string_equal(fmt(&l.p[4].work), "unit:ollama.service");
        assert_string_equal(fmt(&l.p[5].work), "-");
        assert_string_equal(fmt(&l.p[6].work), "-"); /* not in /proc */
        char buf[2048];
        struct strbuf sb;
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_procs_format_workloads(&sb, &l);
        assert_string_equal(buf, "4242=pod:ml-team/train-0:" UID1 ":7d3f8a9b2c1e,7171=pod::" UID2
                                 ":e1f2a3b4c5d6,5151=slurm:4242.0,5252=slurm:4243.batch,"
                                 "6161=unit:ollama.service");
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_procs_format(&sb, &l);
        assert_non_null(strstr(buf, "WORKLOAD"));
        assert_non_null(
            strstr(buf, "   4242 compute  python3              1 MiB  pod:ml-team/train-0:"));
        assert_non_null(
            strstr(buf, "   6161 compute  ollama               1 MiB  unit:ollama.service"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_pods),           cmocka_unit_test(test_slurm),
            cmocka_unit_test(test_units_and_none), cmocka_unit_test(test_pod_dir),
            cmocka_unit_test(test_fixture_root),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
