/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the kernel's lines about processes it ends (collect/host_klog.c). Each
 * line is what the kernel's format prints (the source of each is in host_klog.h), as
 * /dev/kmsg gives the record's text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "collect/host_klog.h"

static struct host_klog_line parse_ok(const char *s, enum host_klog_kind kind)
{
        struct host_klog_line l;
        assert_int_equal(host_klog_parse(s, strlen(s), &l), 0);
        assert_string_equal(host_klog_kind_name(l.kind), host_klog_kind_name(kind));
        return l;
}

static void test_oom_kill(void **state)
{
        (void)state;
        /* mm/oom_kill.c __oom_kill_process, 5.10 to 6.12 */
        struct host_klog_line l = parse_ok(
            "Out of memory: Killed process 1234 (chromium) total-vm:1048576kB, "
            "anon-rss:524288kB, file-rss:2048kB, shmem-rss:1024kB, UID:1000 pgtables:1200kB "
            "oom_score_adj:300",
            HKLOG_OOM_KILL);
        assert_int_equal(l.pid, 1234);
        assert_string_equal(l.comm, "chromium");
        assert_int_equal(l.rss_kb, 524288 + 2048 + 1024);
        assert_false(l.memcg);
        l = parse_ok("Memory cgroup out of memory: Killed process 77 (Web Content) "
                     "total-vm:2000kB, anon-rss:10kB, file-rss:0kB, shmem-rss:0kB, UID:0 "
                     "pgtables:44kB oom_score_adj:0",
                     HKLOG_OOM_KILL);
        assert_true(l.memcg);
        assert_string_equal(l.comm, "Web Content");
        assert_int_equal(l.rss_kb, 10);
        /* oom_kill_allocating_task; and a comm with ") (" in it */
        l = parse_ok("Out of memory (oom_kill_allocating_task): Killed process 9 (a) (b) "
                     "total-vm:1kB, anon-rss:1kB, file-rss:1kB, shmem-rss:1kB, UID:0 "
                     "pgtables:1kB oom_score_adj:0",
                     HKLOG_OOM_KILL);
        assert_string_equal(l.comm, "a) (b");
        /* 4.x without a message or the shmem figure */
        l = parse_ok("Killed process 5 (x) total-vm:10kB, anon-rss:3kB, file-rss:4kB",
                     HKLOG_OOM_KILL);
        assert_int_equal(l.rss_kb, 7);
}

static void test_oom_summary(void **state)
{
        (void)state;
        /* mm/oom_kill.c dump_oom_summary with mem_cgroup_print_oom_context */
        struct host_klog_line l = parse_ok(
            "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,"
            "oom_memcg=/system.slice/player.service,task_memcg=/system.slice/player.service,"
            "task=chromium,pid=1234,uid=1000",
            HKLOG_OOM_SUMMARY);
        assert_true(l.memcg);
        assert_int_equal(l.pid, 1234);
        assert_string_equal(l.comm, "chromium");
        assert_string_equal(l.cgroup, "/system.slice/player.service");
        l = parse_ok("oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,"
                     "mems_allowed=0,global_oom,task_memcg=/user.slice/user-1000.slice/"
                     "session-2.scope,task=a,pid=b,pid=42,uid=0",
                     HKLOG_OOM_SUMMARY);
        assert_false(l.memcg);
        assert_int_equal(l.pid, 42);
        assert_string_equal(l.comm, "a,pid=b");
        assert_string_equal(l.cgroup, "/user.slice/user-1000.slice/session-2.scope");
}

static void test_faults(void **state)
{
        (void)state;
        /* arch/x86/mm/fault.c show_signal_msg (6.2+ adds the CPU) */
        struct host_klog_line l =
            parse_ok("chromium[1234]: segfault at 0 ip 00007f3a2b1c4d5e sp 00007ffc9a8b7c60 "
                     "error 4 in libc.so.6[7f3a2b100000+195000] likely on CPU 2 (core 2, "
                     "socket 0)",
                     HKLOG_SEGFAULT);
        assert_int_equal(l.pid, 1234);
        assert_string_equal(l.comm, "chromium");
        assert_string_equal(l.what, "segfault");
        /* a comm with brackets of its own */
        l = parse_ok("a[1]b[77]: segfault at 8 ip 0 sp 0 error 6", HKLOG_SEGFAULT);
        assert_string_equal(l.comm, "a[1]b");
        assert_int_equal(l.pid, 77);
        /* arch/x86/kernel/traps.c show_signal */
        l = parse_ok("traps: chromium[99] general protection fault ip:7f3a2b1c4d5e "
                     "sp:7ffc9a8b7c60 error:0 in libc.so.6[7f3a2b100000+195000]",
                     HKLOG_TRAP);
        assert_int_equal(l.pid, 99);
        assert_string_equal(l.what, "general protection fault");
        l = parse_ok(
            "traps: python3[5] trap divide error ip:4011 sp:7ffd error:0 in x[400000+1000]",
            HKLOG_TRAP);
        assert_string_equal(l.what, "trap divide error");
        /* arch/arm64/kernel/traps.c arm64_show_signal, 5.10 to 6.12 */
        l = parse_ok("chromium[812]: unhandled exception: DABT (lower EL), ESR "
                     "0x0000000092000006, level 2 translation fault in libEGL.so.1[ffff8+2000]",
                     HKLOG_UNHANDLED);
        assert_int_equal(l.pid, 812);
        assert_string_equal(l.what, "level 2 translation fault");
        /* 4.x arm64 __do_user_fault */
        l = parse_ok("player[3]: unhandled level 3 translation fault (11) at 0x00000010, esr "
                     "0x92000047",
                     HKLOG_UNHANDLED);
        assert_string_equal(l.what, "level 3 translation fault");
}

static void test_not_ours(void **state)
{
        (void)state;
        static const char *const lines[] = {
            "",
            "Killed process",
            "Out of memory: Killed process x (a) total-vm:1kB",
            "Out of memory: Killed process 12 (a)",
            "sshd[1234]: Accepted publickey for pi",
            "audit: type=1400 audit(1.2:3): apparmor=\"DENIED\" comm=\"x[1]\"",
            "traps: x[12] ip:0",
            "oom-kill:constraint=CONSTRAINT_NONE,task=x",
            "oom-kill:constraint=CONSTRAINT_NONE,task=x,pid=12",
            "[1234]: segfault at 0",
            "a very long command name[12]: segfault at 0",
            "usb 1-1: new high-speed USB device number 2",
        };
        for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
                struct host_klog_line l = {.pid = -5};
                assert_int_equal(host_klog_parse(lines[i], strlen(lines[i]), &l), -ENOENT);
                assert_int_equal(l.pid, -5);
        }
}

/* Every prefix of a line parses or is refused, never reading past its end (ASan). */
static void test_prefixes(void **state)
{
        (void)state;
        static const char *const lines[] = {
            "Memory cgroup out of memory: Killed process 77 (Web Content) total-vm:2000kB, "
            "anon-rss:10kB, file-rss:0kB, shmem-rss:0kB",
            "oom-kill:constraint=CONSTRAINT_MEMCG,task_memcg=/a,task=b,pid=1,uid=0",
            "traps: chromium[99] general protection fault ip:7f sp:7f error:0",
            "chromium[812]: unhandled exception: DABT (lower EL), ESR 0x92, level 2 x in y",
        };
        for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
                size_t n = strlen(lines[i]);
                for (size_t k = 0; k <= n; k++) {
                        char *copy = test_malloc(k ? k : 1);
                        memcpy(copy, lines[i], k);
                        struct host_klog_line l;
                        int r = host_klog_parse(copy, k, &l);
                        assert_true(r == 0 || r == -ENOENT);
                        test_free(copy);
                }
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_oom_kill), cmocka_unit_test(test_oom_summary),
            cmocka_unit_test(test_faults),   cmocka_unit_test(test_not_ours),
            cmocka_unit_test(test_prefixes),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
