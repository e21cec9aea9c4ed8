/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: a watched program's life (detect/watch_live.c) and the processes the
 * kernel ends (detect/kernel_host.c), run as the daemon runs them on each host tick
 * (the procs source, the kernel log drained through its taps, the two detectors) on a
 * copy of tests/fixtures/procs with a kernel log file, changed between ticks. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/kmsg.h"
#include "collect/procs.h"
#include "core/counters.h"
#include "core/eventlog.h"
#include "core/frame.h"
#include "core/options.h"
#include "core/vigil.h"
#include "util/clock.h"
#include "run_cmd.h"

extern const struct vigil_detector vigil_detector_kernel_host;
extern const struct vigil_detector vigil_detector_watch_live;

enum { W_PLAYER, W_CHROMIUM, W_NONE, W_KIOSK };

struct fx {
        char root[128], logdir[160];
        struct vigil_options opt;
        struct frame *frame;
        struct counters *extra;
        struct vigil_ctx ctx;
        void *src, *host, *live;
        int n;
};

static void append(const struct fx *f, const char *rel, const char *text)
{
        char path[256];
        snprintf(path, sizeof(path), "%s/%s", f->root, rel);
        FILE *fp = fopen(path, "a");
        assert_non_null(fp);
        fputs(text, fp);
        fclose(fp);
}

/* A process PID running COMM with command line CMD, started START ticks after boot. */
static void add_proc(const struct fx *f, int pid, const char *comm, const char *cmd,
                     unsigned long start)
{
        char rel[64], line[512];
        run_cmd("mkdir -p '%s/proc/%d'", f->root, pid);
        snprintf(rel, sizeof(rel), "proc/%d/cmdline", pid);
        append(f, rel, cmd);
        snprintf(rel, sizeof(rel), "proc/%d/stat", pid);
        snprintf(line, sizeof(line),
                 "%d (%s) S 1 %d %d 0 -1 4194560 0 0 0 0 10 0 0 0 20 0 1 0 %lu 1000 100\n", pid,
                 comm, pid, pid, start);
        append(f, rel, line);
}

static int fx_setup(void **state)
{
        struct fx *f = calloc(1, sizeof(*f));
        char err[128];
        assert_non_null(f);
        snprintf(f->root, sizeof(f->root), "/tmp/vigil-live.XXXXXX");
        assert_non_null(mkdtemp(f->root));
        const char *fixtures = getenv("FIXTURES") ? getenv("FIXTURES") : "tests/fixtures";
        run_cmd("cp -a '%s/procs/proc' '%s/' && mkdir -p '%s/dev' '%s/log'", fixtures, f->root,
                f->root, f->root);
        append(f, "dev/kmsg", "6,1,1000000,-;Booting Linux on physical CPU 0x0\n");
        append(f, "proc/vmstat", "nr_free_pages 1000\noom_kill 3\nnr_zone_active_anon 5\n");
        snprintf(f->logdir, sizeof(f->logdir), "%s/log", f->root);
        options_defaults(&f->opt);
        snprintf(f->opt.root, sizeof(f->opt.root), "%s", f->root);
        assert_int_equal(options_set(&f->opt, "watch", "player=run_linux.py", err, sizeof(err)), 0);
        assert_int_equal(options_set(&f->opt, "watch", "chromium=chromium", err, sizeof(err)), 0);
        assert_int_equal(options_set(&f->opt, "watch", "none=no-such-thing", err, sizeof(err)), 0);
        assert_int_equal(
            options_set(&f->opt, "watch", "kiosk=unit:kiosk.service", err, sizeof(err)), 0);
        /* the unit's process, by its cgroup (v2), whatever its command line */
        add_proc(f, 1600, "cog", "/usr/bin/cog http://localhost/", 7000000);
        append(f, "proc/1600/cgroup", "0::/system.slice/kiosk.service\n");
        /* the unit's state from the stand-in systemctl */
        char path[4600], cwd[512];
        assert_non_null(getcwd(cwd, sizeof(cwd)));
        snprintf(path, sizeof(path), "%s/%s/bin:%s", cwd, fixtures, getenv("PATH"));
        setenv("PATH", path, 1);
        setenv("VIGIL_FAKE_SYSTEMD", f->root, 1);
        append(f, "kiosk.service",
               "NRestarts=2\nExecMainCode=2\nExecMainStatus=11\nResult=signal\n"
               "LoadState=loaded\nActiveState=active\nSubState=running\n");
        f->frame = calloc(1, sizeof(*f->frame));
        f->extra = calloc(1, sizeof(*f->extra));
        assert_true(f->frame && f->extra);
        frame_clear(f->frame);
        f->ctx.opt = &f->opt;
        f->ctx.frame = f->frame;
        f->ctx.extra = f->extra;
        f->ctx.log_dir = f->logdir;
        assert_int_equal(eventlog_open(&f->ctx.events, f->logdir), 0);
        assert_int_equal(kmsg_open(&f->ctx.kmsg, f->root, 64), 0);
        kmsg_drain_to_start(f->ctx.kmsg, 4);
        assert_int_equal(vigil_source_procs.init(&f->ctx, &f->src), 0);
        assert_int_equal(vigil_detector_kernel_host.init(&f->ctx, &f->host), 0);
        assert_int_equal(vigil_detector_watch_live.init(&f->ctx, &f->live), 0);
        *state = f;
        return 0;
}

static int fx_teardown(void **state)
{
        struct fx *f = *state;
        vigil_detector_watch_live.fini(f->live);
        vigil_detector_kernel_host.fini(f->host);
        vigil_source_procs.fini(f->src);
        kmsg_close(f->ctx.kmsg);
        eventlog_close(f->ctx.events);
        run_cmd("rm -rf '%s'", f->root);
        free(f->frame);
        free(f->extra);
        free(f);
        return 0;
}

/* One host tick as the daemon runs it, 2 s after the last (past the settle time). */
static void tick(struct fx *f)
{
        struct tick t = {.due = VCLOCK_BIT(VCLOCK_HOST),
                         .mono_ns = now_mono_ns() + (int64_t)f->n * 2 * NSEC_PER_SEC,
                         .real_ns = now_real_ns()};
        f->n++;
        assert_int_equal(vigil_source_procs.sample(f->src, &f->ctx, &t), 0);
        kmsg_drain(f->ctx.kmsg);
        vigil_detector_kernel_host.feed(f->host, &f->ctx, &t);
        vigil_detector_watch_live.feed(f->live, &f->ctx, &t);
}

/* events.log's lines that contain every one of the NULL-ended words. */
static int lines_with(const struct fx *f, ...)
{
        char path[256], line[2048];
        snprintf(path, sizeof(path), "%s/events.log", f->logdir);
        FILE *fp = fopen(path, "r");
        int n = 0;
        while (fp && fgets(line, sizeof(line), fp)) {
                va_list ap;
                va_start(ap, f);
                bool all = true;
                for (const char *w; (w = va_arg(ap, const char *));)
                        all &= strstr(line, w) != NULL;
                va_end(ap);
                n += all;
        }
        if (fp)
                fclose(fp);
        return n;
}

static void test_missing_at_start(void **state)
{
        struct fx *f = *state;
        tick(f);
        assert_int_equal(lines_with(f, "type=WATCH", "watch=\"none\"", "state=\"missing\"", NULL),
                         1);
        assert_int_equal(lines_with(f, "watch=\"player\"", NULL), 0);
        assert_int_equal(f->ctx.watch_procs[W_PLAYER].leader, 812);
        assert_string_equal(f->ctx.watch_procs[W_PLAYER].leader_comm, "python3");
        assert_true(f->extra->oom_on);
        assert_true(f->extra->oom_kernel_known);
        assert_int_equal(f->extra->oom_kernel, 3);
        tick(f);
        assert_int_equal(lines_with(f, "type=WATCH", NULL), 1); /* said once */
}

/* The player OOM-killed: the kill names it, the liveness says gone with that cause
 * and writes its snapshot; a new player is back, one restart. */
static void test_oom_killed_player(void **state)
{
        struct fx *f = *state;
        tick(f);
        append(f, "dev/kmsg",
               "4,2,9000000,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,"
               "mems_allowed=0,oom_memcg=/system.slice/player.service,task_memcg=/system.slice/"
               "player.service,task=python3,pid=812,uid=1000\n"
               "3,3,9000001,-;Memory cgroup out of memory: Killed process 812 (python3) "
               "total-vm:900000kB, anon-rss:400000kB, file-rss:1000kB, shmem-rss:0kB, UID:1000 "
               "pgtables:900kB oom_score_adj:0\n"
               "4,4,9000002,-;python3 invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0\n");
        run_cmd("rm -rf '%s/proc/812'", f->root);
        tick(f);
        assert_int_equal(lines_with(f, "type=OOM_KILL pid=812 comm=\"python3\" watch=\"player\"",
                                    "scope=\"memory cgroup\"",
                                    "cgroup=\"/system.slice/player.service\"", "rss_kb=401000",
                                    NULL),
                         1);
        assert_int_equal(f->extra->oom_kills[W_PLAYER], 1);
        assert_int_equal(f->extra->oom_kills[VIGIL_MAX_WATCHES], 0);
        assert_int_equal(lines_with(f, "type=WATCH watch=\"player\" state=\"gone\" old_pid=812",
                                    "cause=\"out of memory (python3 pid 812)\"", NULL),
                         1);
        assert_int_equal(lines_with(f, "type=INCIDENT", "player gone: out of memory", NULL), 1);
        run_cmd("grep -q 'the last minute' %s/incidents/incident-*.log", f->logdir);
        run_cmd("grep -q 'Killed process 812 (python3)' %s/incidents/incident-*.log", f->logdir);
        run_cmd("! grep -q 'Booting Linux' %s/incidents/incident-*.log", f->logdir);
        assert_int_equal(f->extra->watch_restarts[W_PLAYER], 0);
        add_proc(f, 1500, "python3", "python3 run_linux.py", 9000000);
        tick(f);
        assert_int_equal(lines_with(f, "state=\"back\" pid=1500", "restarts=1", NULL), 1);
        assert_int_equal(f->extra->watch_restarts[W_PLAYER], 1);
}

/* Chromium's oldest process replaced while its others run: a restart, its cause the
 * segfault line; an OOM kill of a process no watch has is "other". */
static void test_restart_with_segfault(void **state)
{
        struct fx *f = *state;
        tick(f);
        int32_t old = f->ctx.watch_procs[W_CHROMIUM].leader;
        assert_true(old > 0);
        char text[768];
        snprintf(text, sizeof(text),
                 "6,5,9100000,-;chromium[%d]: segfault at 0 ip 00007f3a2b1c4d5e sp "
                 "00007ffc9a8b7c60 error 4 in libc.so.6[7f3a2b100000+195000]\n"
                 "3,6,9100001,-;Out of memory: Killed process 901 (sleep) total-vm:1kB, "
                 "anon-rss:1kB, file-rss:1kB, shmem-rss:1kB, UID:0 pgtables:1kB "
                 "oom_score_adj:0\n"
                 "3,7,9100002,-;Out of memory: Killed process 4242 (python3) total-vm:1kB, "
                 "anon-rss:1kB, file-rss:1kB, shmem-rss:1kB, UID:0 pgtables:1kB "
                 "oom_score_adj:0\n",
                 (int)old);
        append(f, "dev/kmsg", text);
        run_cmd("rm -rf '%s/proc/%d' '%s/proc/901'", f->root, (int)old, f->root);
        tick(f);
        char want[64];
        snprintf(want, sizeof(want), "old_pid=%d", (int)old);
        assert_int_equal(
            lines_with(f, "type=PROCESS_FAULT", "watch=\"chromium\"", "what=\"segfault\"", NULL),
            1);
        assert_int_equal(lines_with(f, "type=WATCH watch=\"chromium\" state=\"restarted\"", want,
                                    "cause=\"segfault (chromium pid", NULL),
                         1);
        assert_int_equal(f->extra->watch_restarts[W_CHROMIUM], 1);
        assert_int_equal(
            lines_with(f, "type=OOM_KILL pid=901 comm=\"sleep\" scope=\"machine\"", NULL), 1);
        assert_int_equal(lines_with(f, "pid=901", "watch=", NULL), 0);
        /* another python3 than the player's (the player's pids are all known) */
        assert_int_equal(lines_with(f, "type=OOM_KILL pid=4242 comm=\"python3\" scope=", NULL), 1);
        assert_int_equal(f->extra->oom_kills[W_PLAYER], 0);
        assert_int_equal(f->extra->oom_kills[VIGIL_MAX_WATCHES], 2);
}

static void test_cgroup_parse(void **state)
{
        (void)state;
        static const struct {
                const char *text, *unit;
                bool in;
        } cases[] = {
            {"0::/system.slice/kiosk.service\n", "kiosk.service", true},
            {"0::/system.slice/kiosk.service/helper\n", "kiosk.service", true},
            {"0::/user.slice/user-1000.slice/user@1000.service/app.slice/kiosk.service\n",
             "kiosk.service", true},
            {"12:pids:/system.slice/other.service\n4:memory:/system.slice/kiosk.service\n",
             "kiosk.service", true},
            {"0::/system.slice/kiosk.service.d\n", "kiosk.service", false},
            {"0::/system.slice/kiosk.service\n", "kiosk", false},
            {"0::/system.slice/xkiosk.service\n", "kiosk.service", false},
            {"0::/\n", "kiosk.service", false},
            {"garbage", "kiosk.service", false},
            {"", "kiosk.service", false},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                if (procs_cgroup_in_unit(cases[i].text, strlen(cases[i].text), cases[i].unit) !=
                    cases[i].in)
                        fail_msg("case %zu: %s in %s", i, cases[i].unit, cases[i].text);
}

/* A watch of a systemd unit: its processes by their cgroup, its state by systemctl. */
static void test_unit_watch(void **state)
{
        struct fx *f = *state;
        for (int k = 0; k < 500 && !f->extra->units[W_KIOSK].known; k++) {
                tick(f);
                usleep(10000);
        }
        assert_int_equal(f->ctx.watch_procs[W_KIOSK].count, 1);
        assert_int_equal(f->ctx.watch_procs[W_KIOSK].leader, 1600);
        assert_true(f->extra->units[W_KIOSK].known);
        assert_string_equal(f->extra->units[W_KIOSK].unit, "kiosk.service");
        assert_int_equal(f->extra->units[W_KIOSK].nrestarts, 2);
        assert_false(f->extra->units[W_KIOSK].failed);
        assert_int_equal(lines_with(f,
                                    "type=UNIT watch=\"kiosk\" unit=\"kiosk.service\" "
                                    "active=\"active\" sub=\"running\" result=\"signal\" "
                                    "nrestarts=2 main=\"killed by signal 11\"",
                                    NULL),
                         1);
        assert_int_equal(lines_with(f, "watch=\"kiosk\" state=\"missing\"", NULL), 0);
        tick(f);
        assert_int_equal(lines_with(f, "type=UNIT", NULL), 1); /* unchanged: said once */
}

/* No /proc/vmstat count: unknown, not 0; the rest goes on. */
static void test_no_vmstat(void **state)
{
        struct fx *f = *state;
        run_cmd("rm -f '%s/proc/vmstat'", f->root);
        vigil_detector_kernel_host.fini(f->host);
        assert_int_equal(vigil_detector_kernel_host.init(&f->ctx, &f->host), 0);
        tick(f);
        assert_false(f->extra->oom_kernel_known);
        run_cmd("printf 'nr_free_pages 1\\n' >'%s/proc/vmstat'", f->root);
        vigil_detector_kernel_host.fini(f->host);
        assert_int_equal(vigil_detector_kernel_host.init(&f->ctx, &f->host), 0);
        tick(f);
        assert_false(f->extra->oom_kernel_known);
        assert_int_equal(lines_with(f, "state=\"missing\"", NULL), 1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_missing_at_start, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_oom_killed_player, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_restart_with_segfault, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_no_vmstat, fx_setup, fx_teardown),
            cmocka_unit_test(test_cgroup_parse),
            cmocka_unit_test_setup_teardown(test_unit_watch, fx_setup, fx_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
