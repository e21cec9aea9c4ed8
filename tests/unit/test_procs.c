/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the procs source's parsers (collect/procs_parse.c) on literals, and the
 * source itself on a copy of tests/fixtures/procs (a fake root with /proc/PID trees,
 * changed between ticks) and on the live /proc with a child of this test. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collect/procs.h"
#include "core/frame.h"
#include "core/options.h"
#include "core/vigil.h"
#include "util/clock.h"
#include "run_cmd.h"

#define HOST VCLOCK_BIT(VCLOCK_HOST)
#define PSS  VCLOCK_BIT(VCLOCK_PSS)

enum { W_PLAYER, W_CHROMIUM, W_RENDERER, W_BROKEN, W_SPANNING, W_NONE, NW };

#define FIXTURE_PIDS 14 /* /proc/PID directories in tests/fixtures/procs */
#define UPTIME_S     86400.50

static char **main_argv;

/* ---- parsers ---- */

static const char stat_812[] =
    "812 (python3) S 1 812 812 0 -1 4194560 1812 0 0 0 50000 7000 0 0 20 0 9 0 1500 36864000 "
    "8100 18446744073709551615 4194304 4202324 140736817816576 0 0 0 0 16781312 1266 0 0 0 17 "
    "2 0 0 0 0 0\n";

static void test_parse_stat(void **state)
{
        (void)state;
        struct proc_stat st;
        assert_int_equal(procs_parse_stat(stat_812, strlen(stat_812), &st), 0);
        assert_string_equal(st.comm, "python3");
        assert_int_equal(st.state, 'S');
        assert_int_equal(st.utime, 50000);
        assert_int_equal(st.stime, 7000);
        assert_int_equal(st.num_threads, 9);
        assert_int_equal(st.starttime, 1500);

        /* comm with spaces and ')': fields are read after the last ')' */
        const char *odd = "1204 (a) (b) S 1110 1204 1204 0 -1 4194560 2204 0 0 0 2000 500 0 0 "
                          "20 0 12 0 8000000 49152000";
        assert_int_equal(procs_parse_stat(odd, strlen(odd), &st), 0);
        assert_string_equal(st.comm, "a) (b");
        assert_int_equal(st.utime, 2000);
        assert_int_equal(st.num_threads, 12);
        assert_int_equal(st.starttime, 8000000);

        /* a comm that looks like the fields themselves */
        const char *fake = "77 (x) R 1 2 3) Z 1 1 1 0 -1 0 0 0 0 0 11 22 -3 -4 -2 -5 4 0 99\n";
        assert_int_equal(procs_parse_stat(fake, strlen(fake), &st), 0);
        assert_string_equal(st.comm, "x) R 1 2 3");
        assert_int_equal(st.state, 'Z');
        assert_int_equal(st.utime, 11);
        assert_int_equal(st.stime, 22);
        assert_int_equal(st.num_threads, 4);
        assert_int_equal(st.starttime, 99);

        /* ends right after starttime, no newline */
        const char *shortest = "5 (k) I 2 0 0 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 280";
        assert_int_equal(procs_parse_stat(shortest, strlen(shortest), &st), 0);
        assert_int_equal(st.starttime, 280);
}

static void test_parse_stat_bad(void **state)
{
        (void)state;
        struct proc_stat st;
        memset(&st, 0x5a, sizeof(st));
        struct proc_stat before = st;
        const char *bad[] = {
            "",
            "garbage",
            "812 (python3",
            "812 python3 S 1 812 812 0 -1 4194560 1812 0 0 0 50000 7000 0 0 20 0 9 0 1500",
            "(python3) S 1 812 812 0 -1 4194560 1812 0 0 0 50000 7000 0 0 20 0 9 0 1500",
            "1301 (broken-app) S 1300 1300 1300 0 -1 4194560 88 0 0 0 5",
            "1 (a) S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0",
            "1 (a) S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 15x0",
            "1 (a) SS 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 150",
            "1 (a) S 1 1 1 0 -1 0 0 0 0 0 -1 2 0 0 20 0 1 0 150",
            "1 (a) S 1 1 1 0 -1 0 0 0 0 0 1 2 0 0 20 0 99999999999999999999 0 150",
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                assert_int_equal(procs_parse_stat(bad[i], strlen(bad[i]), &st), -EINVAL);
                assert_memory_equal(&st, &before, sizeof(st));
        }
        /* the length bounds the parse: the same line cut before starttime */
        assert_int_equal(procs_parse_stat(stat_812, 70, &st), -EINVAL);
}

static void test_parse_pss(void **state)
{
        (void)state;
        const char *rollup = "5641078c2000-7ffcb70d0000 ---p 00000000 00:00 0   [rollup]\n"
                             "Rss:                1780 kB\n"
                             "Pss:                 353 kB\n"
                             "Pss_Dirty:           112 kB\n"
                             "Pss_Anon:            112 kB\n";
        uint64_t kb = 7;
        assert_int_equal(procs_parse_pss_kb(rollup, strlen(rollup), &kb), 0);
        assert_int_equal(kb, 353);
        const char *anon_first = "Pss_Anon: 5 kB\nPss_File: 6 kB\nPss: 11 kB\n";
        assert_int_equal(procs_parse_pss_kb(anon_first, strlen(anon_first), &kb), 0);
        assert_int_equal(kb, 11);
        kb = 7;
        const char *none = "Rss: 1 kB\nPss_Anon: 5 kB\n";
        assert_int_equal(procs_parse_pss_kb(none, strlen(none), &kb), -ENODATA);
        assert_int_equal(procs_parse_pss_kb("", 0, &kb), -ENODATA);
        assert_int_equal(procs_parse_pss_kb("Pss: x kB\n", 10, &kb), -EINVAL);
        assert_int_equal(procs_parse_pss_kb("Pss: 12\n", 8, &kb), -EINVAL);
        assert_int_equal(kb, 7);
        /* cut inside the number's line: only what is inside the length counts */
        assert_int_equal(procs_parse_pss_kb(rollup, 70, &kb), -ENODATA);
}

static void test_cmdline(void **state)
{
        (void)state;
        char a[] = "python3\0run_linux.py\0--fullscreen"; /* + the literal's NUL */
        size_t n = procs_cmdline_normalize(a, sizeof(a), false);
        assert_int_equal(n, sizeof(a) - 1);
        assert_memory_equal(a, "python3 run_linux.py --fullscreen", n);
        assert_true(procs_cmdline_match(a, n, "run_linux.py"));
        assert_true(procs_cmdline_match(a, n, "python3 run_linux.py"));
        assert_false(procs_cmdline_match(a, n, "--fullscreen "));

        /* rewritten with spaces: one trailing space dropped, NULs kept (psutil) */
        char b[] = "chromium --type=renderer \0x ";
        n = procs_cmdline_normalize(b, sizeof(b) - 1, false);
        assert_int_equal(n, sizeof(b) - 2);
        assert_memory_equal(b, "chromium --type=renderer \0x", n);
        assert_false(procs_cmdline_match(b, n, "renderer  x"));
        assert_true(procs_cmdline_match(b, n, "--type=renderer"));

        /* a truncated read: nothing dropped, NULs become spaces */
        char c[] = "abc\0def\0gh";
        n = procs_cmdline_normalize(c, sizeof(c) - 1, true);
        assert_int_equal(n, sizeof(c) - 1);
        assert_memory_equal(c, "abc def gh", n);

        /* kernel threads and zombies: empty, never a match */
        char d[] = "";
        assert_int_equal(procs_cmdline_normalize(d, 0, false), 0);
        assert_false(procs_cmdline_match(d, 0, "a"));
        char e[] = "\0";
        assert_int_equal(procs_cmdline_normalize(e, 1, false), 0);
        assert_false(procs_cmdline_match("abc", 3, ""));
}

/* ---- the source on a fixture copy ---- */

struct fx {
        char root[128];
        struct vigil_options opt;
        struct frame *frame;
        struct vigil_ctx ctx;
        void *src;
        double tck;
};

static void put(const struct fx *f, const char *rel, const char *data, size_t len)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/proc/%s", f->root, rel);
        /* in place (O_TRUNC, same inode): what the source keeps open sees the change */
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, data, len), (ssize_t)len);
        close(fd);
}

/* A stat file like make.sh writes. */
static void put_stat(const struct fx *f, int pid, const char *comm, char st, unsigned utime,
                     unsigned stime, unsigned threads, unsigned long start)
{
        char rel[32], line[512];
        snprintf(rel, sizeof(rel), "%d/stat", pid);
        int n = snprintf(line, sizeof(line),
                         "%d (%s) %c 1 %d %d 0 -1 4194560 100 0 0 0 %u %u 0 0 20 0 %u 0 %lu "
                         "4096000 900 18446744073709551615 4194304 4202324 0 0 0 0 0\n",
                         pid, comm, st, pid, pid, utime, stime, threads, start);
        put(f, rel, line, (size_t)n);
}

static void put_pss(const struct fx *f, int pid, unsigned kb)
{
        char rel[32], text[256];
        snprintf(rel, sizeof(rel), "%d/smaps_rollup", pid);
        int n = snprintf(text, sizeof(text),
                         "00010000-7ffd5c5e1000 ---p 00000000 00:00 0   [rollup]\n"
                         "Rss: %u kB\nPss: %u kB\nPss_Dirty: 0 kB\nPss_Anon: %u kB\n",
                         kb * 2, kb, kb);
        put(f, rel, text, (size_t)n);
}

static void add_watch(struct vigil_options *o, const char *spec)
{
        char err[256];
        assert_int_equal(options_set(o, "watch", spec, err, sizeof(err)), 0);
}

static int fx_setup(void **state)
{
        struct fx *f = calloc(1, sizeof(*f));
        assert_non_null(f);
        snprintf(f->root, sizeof(f->root), "/tmp/vigil-procs.XXXXXX");
        assert_non_null(mkdtemp(f->root));
        const char *fixtures = getenv("FIXTURES") ? getenv("FIXTURES") : "tests/fixtures";
        run_cmd("cp -a '%s/procs/proc' '%s/'", fixtures, f->root);
        options_defaults(&f->opt);
        snprintf(f->opt.root, sizeof(f->opt.root), "%s", f->root);
        add_watch(&f->opt, "player=run_linux.py");
        add_watch(&f->opt, "chromium=chromium");
        add_watch(&f->opt, "renderer=--type=renderer");
        add_watch(&f->opt, "broken=broken-app");
        add_watch(&f->opt, "spanning=python3 run_linux.py");
        add_watch(&f->opt, "none=no-such-thing");
        f->frame = calloc(1, sizeof(*f->frame));
        assert_non_null(f->frame);
        frame_clear(f->frame);
        f->ctx.opt = &f->opt;
        f->ctx.frame = f->frame;
        f->tck = (double)sysconf(_SC_CLK_TCK);
        assert_int_equal(vigil_source_procs.init(&f->ctx, &f->src), 0);
        *state = f;
        return 0;
}

static int fx_teardown(void **state)
{
        struct fx *f = *state;
        vigil_source_procs.fini(f->src);
        run_cmd("rm -rf '%s'", f->root);
        free(f->frame);
        free(f);
        return 0;
}

static void tick(struct fx *f, unsigned due, double at_s)
{
        struct tick t = {.due = due, .mono_ns = (int64_t)(at_s * 1e9)};
        assert_int_equal(vigil_source_procs.sample(f->src, &f->ctx, &t), 0);
}

static const struct watch_frame *W(const struct fx *f, int w)
{
        return &f->frame->watches[w];
}

static uint64_t reads(const struct fx *f)
{
        return procs_cmdline_reads(f->src);
}

static double age(const struct fx *f, unsigned long start)
{
        return UPTIME_S - (double)start / f->tck;
}

static void test_fixture_first_tick(void **state)
{
        struct fx *f = *state;
        assert_int_equal(f->frame->nwatches, NW);
        assert_string_equal(W(f, W_PLAYER)->name, "player");
        assert_string_equal(W(f, W_NONE)->name, "none");
        assert_false(VAL_OK(W(f, W_PLAYER)->count));
        tick(f, HOST | PSS, 1);
        assert_int_equal(reads(f), FIXTURE_PIDS);

        const struct watch_frame *p = W(f, W_PLAYER);
        assert_true(p->count == 1);
        assert_true(p->threads == 9);
        assert_true(p->oldest_age_s == age(f, 1500));
        assert_false(VAL_OK(p->cpu_pct)); /* no baseline yet: missing, not 0 */
        assert_true(p->pss_bytes == 184320.0 * 1024);
        assert_true(p->first_pss_bytes == 184320.0 * 1024);

        /* 1100 1110 1150 1203 (space-rewritten cmdline) 1204 (odd comm); the zombie
         * 1250 has an empty command line */
        const struct watch_frame *c = W(f, W_CHROMIUM);
        assert_true(c->count == 5);
        assert_true(c->threads == 30 + 1 + 8 + 14 + 12);
        assert_true(c->oldest_age_s == age(f, 2000));
        assert_true(c->pss_bytes == (153600.0 + 20480 + 61440 + 102400 + 81920) * 1024);
        assert_true(c->first_pss_bytes == 153600.0 * 1024);

        const struct watch_frame *r = W(f, W_RENDERER);
        assert_true(r->count == 2);
        assert_true(r->threads == 26);
        assert_true(r->oldest_age_s == age(f, 4000));
        assert_true(r->pss_bytes == (102400.0 + 81920) * 1024);
        assert_true(r->first_pss_bytes == 102400.0 * 1024);

        /* 1300: smaps_rollup unreadable; 1301: stat truncated (counted, no values) */
        const struct watch_frame *b = W(f, W_BROKEN);
        assert_true(b->count == 2);
        assert_true(b->threads == 3);
        assert_true(b->oldest_age_s == age(f, 3000));
        assert_false(VAL_OK(b->pss_bytes)); /* not a partial sum */
        assert_false(VAL_OK(b->first_pss_bytes));
        int err = 0;
        assert_int_equal(procs_pss_unreadable(f->src, &err), 1);
        assert_int_equal(err, EISDIR);

        assert_true(W(f, W_SPANNING)->count == 1);
        assert_true(W(f, W_SPANNING)->threads == 9);

        const struct watch_frame *n = W(f, W_NONE);
        assert_true(n->count == 0);
        assert_false(VAL_OK(n->threads));
        assert_false(VAL_OK(n->cpu_pct));
        assert_false(VAL_OK(n->oldest_age_s));
        assert_false(VAL_OK(n->pss_bytes));
        assert_false(VAL_OK(n->first_pss_bytes));
}

static void test_fixture_cpu_and_pss_cadence(void **state)
{
        struct fx *f = *state;
        tick(f, HOST | PSS, 1);
        /* 4 s later: 812 used 150+50 ticks, 1203 400 ticks; 812's PSS grew */
        put_stat(f, 812, "python3", 'S', 50150, 7050, 10, 1500);
        put_stat(f, 1203, "chromium", 'S', 70400, 4000, 14, 4000);
        put_pss(f, 812, 200000);
        tick(f, HOST, 5);
        assert_true(W(f, W_PLAYER)->cpu_pct == 200 / f->tck / 4 * 100);
        assert_true(W(f, W_PLAYER)->threads == 10);
        assert_true(W(f, W_CHROMIUM)->cpu_pct == 400 / f->tck / 4 * 100);
        assert_true(W(f, W_RENDERER)->cpu_pct == 400 / f->tck / 4 * 100);
        assert_true(W(f, W_BROKEN)->cpu_pct == 0); /* measured, idle */
        assert_false(VAL_OK(W(f, W_NONE)->cpu_pct));
        /* PSS keeps its last value until its own clock */
        assert_true(W(f, W_PLAYER)->pss_bytes == 184320.0 * 1024);
        tick(f, PSS, 6);
        assert_true(W(f, W_PLAYER)->pss_bytes == 200000.0 * 1024);
        assert_true(W(f, W_PLAYER)->first_pss_bytes == 200000.0 * 1024);
        /* the PSS tick did not touch the CPU figures */
        assert_true(W(f, W_PLAYER)->cpu_pct == 200 / f->tck / 4 * 100);

        /* 2 s later, 812 used 100 more ticks; 1203 none */
        put_stat(f, 812, "python3", 'S', 50250, 7050, 10, 1500);
        tick(f, HOST, 7);
        assert_true(W(f, W_PLAYER)->cpu_pct == 100 / f->tck / 2 * 100);
        assert_true(W(f, W_CHROMIUM)->cpu_pct == 0);

        /* the unreadable smaps_rollup becomes readable: the total is whole again */
        run_cmd("rm -rf '%s/proc/1300/smaps_rollup'", f->root);
        put_pss(f, 1300, 3000);
        tick(f, PSS, 8);
        assert_true(W(f, W_BROKEN)->pss_bytes == (3000.0 + 4096) * 1024);
        assert_true(W(f, W_BROKEN)->first_pss_bytes == 3000.0 * 1024);
        assert_int_equal(procs_pss_unreadable(f->src, NULL), 0);
}

/* The first host tick reads PSS although the PSS clock is not due (the reference has
 * PSS in every row); later host ticks leave it to the PSS clock. */
static void test_fixture_pss_at_start(void **state)
{
        struct fx *f = *state;
        tick(f, HOST, 1);
        assert_true(W(f, W_PLAYER)->pss_bytes == 184320.0 * 1024);
        assert_true(W(f, W_PLAYER)->first_pss_bytes == 184320.0 * 1024);
        assert_true(W(f, W_RENDERER)->pss_bytes == (102400.0 + 81920) * 1024);
        put_pss(f, 812, 200000);
        tick(f, HOST, 2);
        assert_true(W(f, W_PLAYER)->pss_bytes == 184320.0 * 1024); /* not re-read */
        tick(f, HOST | PSS, 3);
        assert_true(W(f, W_PLAYER)->pss_bytes == 200000.0 * 1024);
}

static void test_fixture_classified_once(void **state)
{
        struct fx *f = *state;
        tick(f, HOST | PSS, 1);
        assert_int_equal(reads(f), FIXTURE_PIDS);
        /* newly seen pids are read once more after a tick (a fork may not have
         * exec'd yet), then never while they stay */
        tick(f, HOST, 5);
        assert_int_equal(reads(f), 2 * FIXTURE_PIDS);
        tick(f, HOST | PSS, 9);
        assert_int_equal(reads(f), 2 * FIXTURE_PIDS);

        /* a known non-matching pid's command line changes: not read again */
        static const char fake[] = "chromium\0--fake\0";
        put(f, "901/cmdline", fake, sizeof(fake) - 1);
        tick(f, HOST, 13);
        assert_int_equal(reads(f), 2 * FIXTURE_PIDS);
        assert_true(W(f, W_CHROMIUM)->count == 5);
}

static void test_fixture_pid_reuse(void **state)
{
        struct fx *f = *state;
        tick(f, HOST | PSS, 1);
        tick(f, HOST, 5);
        uint64_t base = reads(f);

        /* 812 exits and its pid is reused by an editor: new starttime, new cmdline */
        static const char vim[] = "vim\0notes.txt\0";
        put(f, "812/cmdline", vim, sizeof(vim) - 1);
        put_stat(f, 812, "vim", 'S', 3, 1, 1, 8640000);
        tick(f, HOST, 9);
        assert_int_equal(reads(f), base + 1);
        assert_true(W(f, W_PLAYER)->count == 0);
        assert_true(W(f, W_SPANNING)->count == 0);
        assert_false(VAL_OK(W(f, W_PLAYER)->pss_bytes)); /* no match: no PSS */

        /* 900 (a shell, never read again) is replaced by a new player process: a
         * new /proc/900 directory, as the kernel makes for a new process */
        run_cmd("cp -a '%s/proc/900' '%s/proc/900.new'", f->root, f->root);
        static const char player[] = "python3\0run_linux.py\0--windowed\0";
        put(f, "900.new/cmdline", player, sizeof(player) - 1);
        put_stat(f, 900, "python3", 'S', 10, 10, 4, 8630000);
        run_cmd("cp '%s/proc/900/stat' '%s/proc/900.new/stat'", f->root, f->root);
        run_cmd("rm -rf '%s/proc/900' && mv '%s/proc/900.new' '%s/proc/900'", f->root, f->root,
                f->root);
        tick(f, HOST, 13);
        assert_int_equal(reads(f), base + 3); /* 900, and 812's recheck as a new process */
        assert_true(W(f, W_PLAYER)->count == 1);
        assert_true(W(f, W_PLAYER)->threads == 4);
        assert_true(W(f, W_PLAYER)->oldest_age_s == age(f, 8630000));
        assert_false(VAL_OK(W(f, W_PLAYER)->cpu_pct)); /* a new process: no baseline */
        tick(f, PSS, 14);
        assert_true(W(f, W_PLAYER)->pss_bytes == 1536.0 * 1024);

        /* /proc/1100 made again for the same process (an evicted dentry): classified
         * again, its CPU baseline kept */
        run_cmd("cp -a '%s/proc/1100' '%s/proc/1100.new' && rm -rf '%s/proc/1100' && "
                "mv '%s/proc/1100.new' '%s/proc/1100'",
                f->root, f->root, f->root, f->root, f->root);
        put_stat(f, 1100, "chromium", 'S', 90100, 21000, 30, 2000);
        uint64_t before = reads(f);
        tick(f, HOST, 15);
        assert_int_equal(reads(f), before + 2); /* 1100, and 900's recheck */
        assert_true(W(f, W_CHROMIUM)->count == 5);
        assert_true(W(f, W_CHROMIUM)->cpu_pct == 100 / f->tck / 2 * 100);

        /* and a matching pid reused by a matching process: a new baseline */
        run_cmd("cp -a '%s/proc/1150' '%s/proc/1150.new' && rm -rf '%s/proc/1150' && "
                "mv '%s/proc/1150.new' '%s/proc/1150'",
                f->root, f->root, f->root, f->root, f->root);
        put_stat(f, 1150, "chromium", 'S', 5, 5, 2, 8630000);
        put_stat(f, 1100, "chromium", 'S', 90200, 21000, 30, 2000);
        tick(f, HOST, 16);
        assert_true(W(f, W_CHROMIUM)->count == 5);
        assert_true(W(f, W_CHROMIUM)->threads == 30 + 1 + 2 + 14 + 12);
        assert_true(W(f, W_CHROMIUM)->cpu_pct == 100 / f->tck / 1 * 100); /* 1150: 0 */

        /* a renderer exits: gone from the listing */
        run_cmd("rm -rf '%s/proc/1204'", f->root);
        tick(f, HOST, 17);
        assert_true(W(f, W_CHROMIUM)->count == 4);
        assert_true(W(f, W_RENDERER)->count == 1);
        assert_true(W(f, W_RENDERER)->threads == 14);
        assert_true(W(f, W_RENDERER)->oldest_age_s == age(f, 4000));
}

static void test_fixture_exec_and_zombie(void **state)
{
        struct fx *f = *state;
        tick(f, HOST | PSS, 1);
        tick(f, HOST, 5);
        uint64_t base = reads(f);

        /* the zygote execs another program: same pid and starttime, new comm */
        static const char other[] = "/usr/bin/other\0";
        put(f, "1110/cmdline", other, sizeof(other) - 1);
        put_stat(f, 1110, "other", 'S', 40, 30, 1, 2010);
        tick(f, HOST, 9);
        assert_int_equal(reads(f), base + 1);
        assert_true(W(f, W_CHROMIUM)->count == 4);
        assert_true(W(f, W_CHROMIUM)->threads == 64);

        /* the gpu process dies and stays a zombie until reaped: not counted */
        put_stat(f, 1150, "chromium", 'Z', 30000, 9000, 1, 2100);
        tick(f, HOST, 13);
        assert_true(W(f, W_CHROMIUM)->count == 3);
        assert_true(W(f, W_CHROMIUM)->threads == 56);

        /* a pid first listed now still runs its parent's command line (fork before
         * exec); the next tick reads it again and sees the exec */
        run_cmd("cp -a '%s/proc/901' '%s/proc/1400'", f->root, f->root);
        static const char bash[] = "/bin/bash\0/home/pi/start.sh\0";
        put(f, "1400/cmdline", bash, sizeof(bash) - 1);
        put_stat(f, 1400, "bash", 'S', 0, 0, 1, 8640000);
        tick(f, HOST, 17);
        assert_true(W(f, W_PLAYER)->count == 1);
        static const char player[] = "python3\0run_linux.py\0";
        put(f, "1400/cmdline", player, sizeof(player) - 1);
        tick(f, HOST, 17.5);
        assert_true(W(f, W_PLAYER)->count == 2);
}

static void test_fixture_malformed(void **state)
{
        struct fx *f = *state;
        /* every file of a matching process unreadable or garbage: counted, no values */
        put(f, "1100/stat", "garbage", 7);
        put(f, "1100/smaps_rollup", "Rss: 5 kB\n", 10);
        put(f, "uptime", "x", 1);
        tick(f, HOST | PSS, 1);
        const struct watch_frame *c = W(f, W_CHROMIUM);
        assert_true(c->count == 5);
        assert_true(c->threads == 1 + 8 + 14 + 12);
        assert_false(VAL_OK(c->oldest_age_s)); /* no uptime */
        assert_false(VAL_OK(c->pss_bytes));
        assert_false(VAL_OK(c->first_pss_bytes)); /* 1100 is the lowest pid */
        int err = 0;
        assert_int_equal(procs_pss_unreadable(f->src, &err), 2);
        assert_int_equal(err, ENODATA);
        assert_true(W(f, W_RENDERER)->pss_bytes == (102400.0 + 81920) * 1024);
}

static void test_init_errors(void **state)
{
        (void)state;
        struct vigil_options opt;
        struct frame *fr = calloc(1, sizeof(*fr));
        assert_non_null(fr);
        frame_clear(fr);
        options_defaults(&opt);
        struct vigil_ctx ctx = {.opt = &opt, .frame = fr};
        void *s = NULL;
        assert_int_equal(vigil_source_procs.init(&ctx, &s), -ENODEV);
        assert_int_equal(fr->nwatches, 0);
        add_watch(&opt, "x=y");
        snprintf(opt.root, sizeof(opt.root), "/nonexistent/vigil-root");
        assert_int_equal(vigil_source_procs.init(&ctx, &s), -ENOENT);
        assert_int_equal(fr->nwatches, 0);
        free(fr);
}

/* ---- the live /proc ---- */

static pid_t live_child = -1;
static char live_saved_argv0[4096];

/* Whatever the test's outcome: the child is killed and our command line restored. */
static int live_teardown(void **state)
{
        (void)state;
        if (live_child > 0) {
                kill(live_child, SIGKILL);
                waitpid(live_child, NULL, 0);
                live_child = -1;
        }
        if (live_saved_argv0[0])
                memcpy(main_argv[0], live_saved_argv0, strlen(live_saved_argv0));
        return 0;
}

static bool self_cmdline_has(const char *marker)
{
        char buf[4096];
        int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return false;
        ssize_t n = read(fd, buf, sizeof(buf));
        close(fd);
        return n > 0 && memmem(buf, (size_t)n, marker, strlen(marker)) != NULL;
}

static void live_fork_child(void)
{
        pid_t parent = getpid();
        live_child = fork();
        assert_true(live_child >= 0);
        if (live_child == 0) {
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (getppid() != parent)
                        _exit(0);
                close(STDOUT_FILENO);
                close(STDERR_FILENO);
                for (;;)
                        pause();
        }
}

static void test_live_self_and_child(void **state)
{
        (void)state;
        /* Rewrite our own command line (what /proc/self/cmdline reads) to a marker;
         * a forked child shares it. The source must count the child, not itself. */
        char marker[32];
        snprintf(marker, sizeof(marker), "vpx%d", (int)getpid());
        size_t alen = strlen(main_argv[0]);
        if (alen < strlen(marker) || alen >= sizeof(live_saved_argv0))
                skip();
        memcpy(live_saved_argv0, main_argv[0], alen + 1);
        memset(main_argv[0], '_', alen);
        memcpy(main_argv[0], marker, strlen(marker));
        if (!self_cmdline_has(marker))
                skip(); /* argv is not what the kernel shows (valgrind runs us so) */
        live_fork_child();

        struct vigil_options opt;
        options_defaults(&opt);
        char spec[64];
        snprintf(spec, sizeof(spec), "me=%s", marker);
        add_watch(&opt, spec);
        struct frame fr;
        frame_clear(&fr);
        struct vigil_ctx ctx = {.opt = &opt, .frame = &fr};
        void *s = NULL;
        assert_int_equal(vigil_source_procs.init(&ctx, &s), 0);
        struct tick t = {.due = HOST | PSS, .mono_ns = now_mono_ns()};
        int r1 = vigil_source_procs.sample(s, &ctx, &t);
        struct watch_frame first = fr.watches[0];
        t.due = HOST;
        t.mono_ns = now_mono_ns() + 1;
        int r2 = vigil_source_procs.sample(s, &ctx, &t);
        struct watch_frame second = fr.watches[0];
        kill(live_child, SIGKILL);
        waitpid(live_child, NULL, 0);
        live_child = -1;
        t.mono_ns = now_mono_ns() + 2;
        int r3 = vigil_source_procs.sample(s, &ctx, &t);
        vigil_source_procs.fini(s);

        assert_int_equal(r1, 0);
        assert_true(first.count == 1);
        assert_true(first.threads == 1);
        assert_true(first.oldest_age_s >= 0);
        assert_true(VAL_OK(first.pss_bytes) && first.pss_bytes > 0);
        assert_true(first.first_pss_bytes == first.pss_bytes);
        assert_int_equal(r2, 0);
        assert_true(VAL_OK(second.cpu_pct) && second.cpu_pct >= 0);
        assert_int_equal(r3, 0);
        assert_true(fr.watches[0].count == 0);
        assert_false(VAL_OK(fr.watches[0].pss_bytes));
}

int main(int argc, char **argv)
{
        (void)argc;
        main_argv = argv;
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_parse_stat),
            cmocka_unit_test(test_parse_stat_bad),
            cmocka_unit_test(test_parse_pss),
            cmocka_unit_test(test_cmdline),
            cmocka_unit_test_setup_teardown(test_fixture_first_tick, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_fixture_pss_at_start, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_fixture_cpu_and_pss_cadence, fx_setup,
                                            fx_teardown),
            cmocka_unit_test_setup_teardown(test_fixture_classified_once, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_fixture_pid_reuse, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_fixture_exec_and_zombie, fx_setup, fx_teardown),
            cmocka_unit_test_setup_teardown(test_fixture_malformed, fx_setup, fx_teardown),
            cmocka_unit_test(test_init_errors),
            cmocka_unit_test_teardown(test_live_self_and_child, live_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
