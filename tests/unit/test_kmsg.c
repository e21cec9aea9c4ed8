/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the kernel log reader and ring (collect/kmsg.c), on string literals and
 * on the fixture tests/fixtures/kmsg/dev/kmsg. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collect/kmsg.h"

#define FIXTURE "tests/fixtures/kmsg"

static char tmp[64];

static int setup(void **state)
{
        (void)state;
        snprintf(tmp, sizeof(tmp), "/tmp/vigil-kmsg-XXXXXX");
        return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
        (void)state;
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
        return system(cmd);
}

static void append(const char *path, const char *text)
{
        FILE *f = fopen(path, "a");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

/* A copy of the fixture under tmp/NAME, so a test can append to it. */
static void copy_fixture(const char *name, char *root, size_t cap)
{
        char cmd[512];
        snprintf(root, cap, "%s/%s", tmp, name);
        snprintf(cmd, sizeof(cmd), "mkdir -p %s/dev && cp " FIXTURE "/dev/kmsg %s/dev/kmsg", root,
                 root);
        assert_int_equal(system(cmd), 0);
}

/* Record i, which must exist. */
static struct kmsg_record get(const struct kmsg *k, size_t i)
{
        struct kmsg_record r;
        assert_true(kmsg_get(k, i, &r));
        return r;
}

static void test_parse_record(void **state)
{
        (void)state;
        struct kmsg_record r;
        const char *s =
            "6,1043,5140900,-;NVRM: loaded\n SUBSYSTEM=pci\n DEVICE=+pci:0000:01:00.0\n";
        assert_int_equal(kmsg_parse_record(s, strlen(s), &r), 0);
        assert_int_equal(r.prio, 6);
        assert_int_equal(r.seq, 1043);
        assert_int_equal(r.usec, 5140900);
        assert_string_equal(r.text, "NVRM: loaded");
        assert_int_equal(r.len, 12);
        assert_false(r.cut);
        /* Kernel 3.5 had no flags field; newer ones may add fields before the ';'. */
        assert_int_equal(kmsg_parse_record("30,2,3;udevd[80]: starting", 26, &r), 0);
        assert_int_equal(r.prio, 30);
        assert_string_equal(r.text, "udevd[80]: starting");
        s = "4,7,9,c,caller=T12;a;b";
        assert_int_equal(kmsg_parse_record(s, strlen(s), &r), 0);
        assert_string_equal(r.text, "a;b");
        /* Empty text is a record. */
        assert_int_equal(kmsg_parse_record("6,8,9,-;", 8, &r), 0);
        assert_string_equal(r.text, "");
}

static void test_parse_record_bounded(void **state)
{
        (void)state;
        struct kmsg_record r;
        /* n excludes the tail: the text stops at n, the buffer has no NUL there. */
        const char buf[] = "6,1,2,-;visibleHIDDEN";
        assert_int_equal(kmsg_parse_record(buf, 15, &r), 0);
        assert_string_equal(r.text, "visible");
        /* Control bytes are escaped as the kernel does. */
        assert_int_equal(kmsg_parse_record("6,1,2,-;a\tb\x7f", 12, &r), 0);
        assert_string_equal(r.text, "a\\x09b\\x7f");
        /* A text longer than the slot is cut, and says so. */
        char big[2000];
        memcpy(big, "6,1,2,-;", 8);
        memset(big + 8, 'x', sizeof(big) - 8);
        assert_int_equal(kmsg_parse_record(big, sizeof(big), &r), 0);
        assert_int_equal(r.len, KMSG_TEXT_MAX - 1);
        assert_int_equal(strlen(r.text), KMSG_TEXT_MAX - 1);
        assert_true(r.cut);
        /* An escape never straddles the cut. */
        memset(big + 8, '\x01', sizeof(big) - 8);
        assert_int_equal(kmsg_parse_record(big, sizeof(big), &r), 0);
        assert_int_equal(r.len, (KMSG_TEXT_MAX - 1) / 4 * 4);
}

static void test_parse_record_malformed(void **state)
{
        (void)state;
        struct kmsg_record r = {.seq = 77};
        static const char *const bad[] = {
            "",
            "this line is not a record",
            " SUBSYSTEM=pci",
            "6,1,2,-",                         /* no ';' */
            "6,1;text",                        /* no usec */
            "6,x,2,-;text",                    /* not a number */
            "-6,1,2,-;text",                   /* negative */
            "70000,1,2,-;text",                /* prio out of range */
            "6,1,99999999999999999999,-;text", /* overflow */
            "6,1,2x;text",                     /* junk after usec */
            "6,1,2,-\n;text",                  /* the ';' is on the next line */
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                assert_int_equal(kmsg_parse_record(bad[i], strlen(bad[i]), &r), -EINVAL);
        assert_int_equal(r.seq, 77); /* untouched */
}

static void test_format_time(void **state)
{
        (void)state;
        char b[40];
        assert_int_equal(kmsg_format_time(b, sizeof(b), 0), 14);
        assert_string_equal(b, "[    0.000000]");
        kmsg_format_time(b, sizeof(b), 3600123456ULL);
        assert_string_equal(b, "[ 3600.123456]");
        kmsg_format_time(b, sizeof(b), 123456789012345ULL);
        assert_string_equal(b, "[123456789.012345]");
        assert_int_equal(kmsg_format_time(b, 6, 0), 5);
        assert_string_equal(b, "[    ");
}

static void test_fixture_drain(void **state)
{
        (void)state;
        struct kmsg *k;
        struct kmsg_stats st;
        assert_int_equal(kmsg_open(&k, FIXTURE, 0), 0);
        assert_null(kmsg_error(k));
        assert_int_equal(kmsg_count(k), 0);
        assert_int_equal(kmsg_drain(k), 17);
        assert_int_equal(kmsg_count(k), 17);
        assert_int_equal(kmsg_drain(k), 0); /* nothing new */
        struct kmsg_record r = get(k, 0);
        assert_int_equal(r.seq, 0);
        assert_string_equal(r.text, "Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075) "
                                    "#45-Ubuntu SMP PREEMPT_DYNAMIC");
        r = get(k, 3); /* continuation lines were skipped */
        assert_int_equal(r.seq, 3);
        assert_int_equal(r.prio, 4);
        assert_string_equal(r.text, "nvidia: loading out-of-tree module taints kernel.");
        assert_int_equal(get(k, 16).seq, 16);
        assert_false(kmsg_get(k, 17, &r));
        assert_int_equal(kmsg_index_after(k, 11), 12);
        assert_int_equal(kmsg_index_after(k, 0), 1);
        assert_int_equal(kmsg_index_after(k, 16), 17);
        assert_int_equal(kmsg_index_after(k, 1000), 17);
        assert_int_equal(kmsg_index_after(NULL, 0), 0);
        kmsg_get_stats(k, &st);
        assert_int_equal(st.records, 17);
        assert_int_equal(st.malformed, 1);
        assert_int_equal(st.lost, 0);
        kmsg_close(k);
}

static void format(const struct kmsg *k, enum kmsg_filter f, char *buf, size_t cap)
{
        struct strbuf sb;
        sb_init_fixed(&sb, buf, cap);
        kmsg_format(k, f, &sb);
        assert_false(sb.overflow);
}

static void test_filters(void **state)
{
        (void)state;
        struct kmsg *k;
        char buf[8192];
        assert_int_equal(kmsg_open(&k, FIXTURE, 0), 0);
        kmsg_drain(k);
        format(k, KMSG_FILTER_GPU, buf, sizeof(buf));
        assert_string_equal(
            buf,
            "[ 1234.567890] nvidia: loading out-of-tree module taints kernel.\n"
            "[ 1234.600000] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.86.15  Fri Jan 24 "
            "2025\n"
            "[ 3600.123456] NVRM: Xid (PCI:0000:01:00): 62, pid='<unknown>', name=<unknown>, "
            "2a5c3b18 2a5c3630 2a5c2d8c 2a5d0114 00000000\n"
            "[ 3600.223456] NVRM: Xid (PCI:0000:01:00): 45, pid=4242, name=python3, Ch 00000010\n"
            "[ 3606.123456] NVRM: Xid (PCI:0000:01:00): 119, pid=4242, name=python3, Timeout "
            "after 6s of waiting for RPC response from GPU0 GSP! Expected function 76 "
            "(GSP_RM_CONTROL) (0x20801348 0x4).\n"
            "[ 3610.000100] nvidia 0000:01:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), "
            "type=Transaction Layer, (Receiver ID)\n"
            "[ 3649.000000] NVRM: GPU at PCI:0000:01:00: GPU-5a1b2c3d-0000-1111-2222-333344445555\n"
            "[ 3649.000100] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n"
            "[ 3649.000200] NVRM: GPU 0000:01:00.0: GPU has fallen off the bus.\n");
        format(k, KMSG_FILTER_AER, buf, sizeof(buf));
        assert_string_equal(
            buf, "[ 3610.000000] pcieport 0000:00:01.0: AER: Uncorrected (Fatal) error "
                 "received: 0000:01:00.0\n"
                 "[ 3610.000100] nvidia 0000:01:00.0: PCIe Bus Error: "
                 "severity=Uncorrected (Fatal), type=Transaction Layer, (Receiver ID)\n");
        format(k, KMSG_FILTER_POWER, buf, sizeof(buf));
        assert_string_equal(buf, "[ 3700.500000] CPU0: Core temperature above threshold, cpu "
                                 "clock throttled (total events = 1)\n"
                                 "[ 3701.000000] hwmon hwmon1: Undervoltage detected!\n");
        format(k, KMSG_FILTER_ALL, buf, sizeof(buf));
        assert_true(strncmp(buf, "[    0.000000] Linux version", 28) == 0);
        assert_non_null(strstr(buf, "\n[    0.812345] pci 0000:01:00.0: [10de:2684] type 00"));
        assert_true(strlen(buf) > 17 * 15);
        size_t lines = 0;
        for (const char *p = buf; *p; p++)
                lines += *p == '\n';
        assert_int_equal(lines, 17);
        assert_true(kmsg_matches(k, KMSG_FILTER_GPU, "nvrm: lower case matches too"));
        assert_false(kmsg_matches(k, KMSG_FILTER_AER, "nothing here"));
        assert_true(kmsg_matches(k, KMSG_FILTER_ALL, "anything"));
        kmsg_close(k);
}

static void test_filter_last_n(void **state)
{
        (void)state;
        char root[128], path[160], line[128], buf[16384];
        copy_fixture("lastn", root, sizeof(root));
        snprintf(path, sizeof(path), "%s/dev/kmsg", root);
        /* 30 more AER lines: the section keeps the newest 20, oldest first. */
        for (int i = 0; i < 30; i++) {
                snprintf(line, sizeof(line), "3,%d,%lld,-;pcieport: AER: corrected error %d\n",
                         17 + i, 4000000000LL + i, i);
                append(path, line);
        }
        struct kmsg *k;
        assert_int_equal(kmsg_open(&k, root, 0), 0);
        assert_int_equal(kmsg_drain(k), 47);
        format(k, KMSG_FILTER_AER, buf, sizeof(buf));
        assert_true(strncmp(buf, "[ 4000.000010] pcieport: AER: corrected error 10\n", 48) == 0);
        const char *last = "[ 4000.000029] pcieport: AER: corrected error 29\n";
        assert_string_equal(buf + strlen(buf) - strlen(last), last);
        size_t lines = 0;
        for (const char *p = buf; *p; p++)
                lines += *p == '\n';
        assert_int_equal(lines, 20);
        kmsg_close(k);
}

static void test_ring_wraps(void **state)
{
        (void)state;
        struct kmsg *k;
        char buf[2048];
        assert_int_equal(kmsg_open(&k, FIXTURE, 4), 0);
        assert_int_equal(kmsg_drain(k), 17);
        assert_int_equal(kmsg_count(k), 4);
        assert_int_equal(get(k, 0).seq, 13);
        assert_int_equal(get(k, 3).seq, 16);
        assert_int_equal(kmsg_index_after(k, 2), 0);
        assert_int_equal(kmsg_index_after(k, 14), 2);
        format(k, KMSG_FILTER_AER, buf, sizeof(buf));
        assert_string_equal(buf, "(no matching lines in the last 4 kernel log records)\n");
        kmsg_close(k);
}

/* The ring is bounded in bytes too: long lines take more of it than short ones. */
static void test_long_records(void **state)
{
        (void)state;
        char root[128], path[160], line[640];
        struct kmsg *k;
        copy_fixture("long", root, sizeof(root));
        snprintf(path, sizeof(path), "%s/dev/kmsg", root);
        for (int i = 0; i < 5; i++) {
                int n = snprintf(line, sizeof(line), "4,%d,9000000000,-;", 17 + i);
                memset(line + n, 'a' + i, 500);
                memcpy(line + n + 500, "\n", 2);
                append(path, line);
        }
        /* 8 records' worth of bytes: 1280, of which a 500-character line takes 528. */
        assert_int_equal(kmsg_open(&k, root, 8), 0);
        assert_int_equal(kmsg_drain(k), 22);
        assert_int_equal(kmsg_count(k), 2);
        assert_int_equal(get(k, 0).seq, 20);
        assert_int_equal(get(k, 1).len, 500);
        assert_int_equal(get(k, 1).text[499], 'e');
        kmsg_close(k);
}

static void test_appended_lines(void **state)
{
        (void)state;
        char root[128], path[160];
        struct kmsg *k;
        struct kmsg_stats st;
        copy_fixture("append", root, sizeof(root));
        snprintf(path, sizeof(path), "%s/dev/kmsg", root);
        assert_int_equal(kmsg_open(&k, root, 0), 0);
        assert_int_equal(kmsg_drain(k), 17);
        /* Two new records, one after a gap of 3 overwritten ones. */
        append(path, "4,17,3800000000,-;NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action "
                     "changed from 0x0 (None) to 0x1 (GPU Reset Required)\n SUBSYSTEM=pci\n"
                     "4,21,3800000001,-;after the gap\n");
        assert_int_equal(kmsg_drain(k), 2);
        assert_int_equal(kmsg_count(k), 19);
        assert_int_equal(get(k, 18).seq, 21);
        kmsg_get_stats(k, &st);
        assert_int_equal(st.lost, 3);
        /* A line without its newline yet waits for it. */
        append(path, "6,22,3800000002,-;half");
        assert_int_equal(kmsg_drain(k), 0);
        append(path, " a line\n");
        assert_int_equal(kmsg_drain(k), 1);
        assert_string_equal(get(k, 19).text, "half a line");
        kmsg_close(k);
}

struct tap_seen {
        unsigned n;
        uint64_t first, last;
};

static void tap_count(void *arg, const struct kmsg_record *rec)
{
        struct tap_seen *t = arg;
        if (!t->n++)
                t->first = rec->seq;
        t->last = rec->seq;
}

/* The tap sees every record a drain takes, however few the ring keeps (4 here). */
static void test_tap_sees_every_record(void **state)
{
        (void)state;
        char root[128], path[160], line[128];
        struct kmsg *k;
        struct tap_seen t = {0};
        copy_fixture("tap", root, sizeof(root));
        snprintf(path, sizeof(path), "%s/dev/kmsg", root);
        assert_int_equal(kmsg_open(&k, root, 4), 0);
        kmsg_drain_to_start(k, 8);
        kmsg_set_tap(k, tap_count, &t);
        for (int i = 0; i < 1000; i++) {
                snprintf(line, sizeof(line), "3,%d,9000000000,-;NVRM: Xid (PCI:0000:01:00): 43\n",
                         100 + i);
                append(path, line);
        }
        assert_int_equal(kmsg_drain(k), 1000);
        assert_int_equal(t.n, 1000);
        assert_int_equal(t.first, 100);
        assert_int_equal(t.last, 1099);
        assert_true(kmsg_count(k) <= 4);
        kmsg_set_tap(k, NULL, NULL);
        append(path, "3,1100,9000000001,-;after\n");
        assert_int_equal(kmsg_drain(k), 1);
        assert_int_equal(t.n, 1000); /* removed */
        kmsg_close(k);
}

/* Two scanners tap the same reader: each sees every record; one removed, the other
 * goes on; more than KMSG_TAPS_MAX are refused. */
static void test_taps_side_by_side(void **state)
{
        (void)state;
        char root[128], path[160];
        struct kmsg *k;
        struct tap_seen a = {0}, b = {0}, more[KMSG_TAPS_MAX];
        copy_fixture("taps2", root, sizeof(root));
        snprintf(path, sizeof(path), "%s/dev/kmsg", root);
        assert_int_equal(kmsg_open(&k, root, 4), 0);
        kmsg_drain_to_start(k, 8);
        assert_int_equal(kmsg_set_tap(k, tap_count, &a), 0);
        assert_int_equal(kmsg_set_tap(k, tap_count, &b), 0);
        assert_int_equal(kmsg_set_tap(k, tap_count, &b), 0); /* the same arg: replaced */
        append(path, "3,500,9000000000,-;one\n3,501,9000000001,-;two\n");
        assert_int_equal(kmsg_drain(k), 2);
        assert_int_equal(a.n, 2);
        assert_int_equal(b.n, 2);
        kmsg_set_tap(k, NULL, &a);
        append(path, "3,502,9000000002,-;three\n");
        assert_int_equal(kmsg_drain(k), 1);
        assert_int_equal(a.n, 2);
        assert_int_equal(b.n, 3);
        for (unsigned i = 0; i < KMSG_TAPS_MAX - 1; i++)
                assert_int_equal(kmsg_set_tap(k, tap_count, &more[i]), 0);
        assert_int_equal(kmsg_set_tap(k, tap_count, &more[KMSG_TAPS_MAX - 1]), -ENOSPC);
        kmsg_close(k);
}

/* What can be waited on with poll(2): a FIFO (as the device), never a fixture file,
 * which poll always finds readable. A FIFO's write holds whole records; none written,
 * it reads nothing and polls quiet (held open for writing too: no end-of-file). */
static void test_poll_fd(void **state)
{
        (void)state;
        char root[128], path[160];
        struct kmsg *k;
        copy_fixture("pollfile", root, sizeof(root));
        assert_int_equal(kmsg_open(&k, root, 0), 0);
        assert_int_equal(kmsg_poll_fd(k), -1);
        kmsg_close(k);
        assert_int_equal(kmsg_poll_fd(NULL), -1);

        snprintf(root, sizeof(root), "%s/fifo", tmp);
        snprintf(path, sizeof(path), "%s/dev", root);
        assert_int_equal(mkdir(root, 0700), 0);
        assert_int_equal(mkdir(path, 0700), 0);
        snprintf(path, sizeof(path), "%s/dev/kmsg", root);
        assert_int_equal(mkfifo(path, 0600), 0);
        assert_int_equal(kmsg_open(&k, root, 0), 0);
        int fd = kmsg_poll_fd(k);
        assert_true(fd >= 0);
        struct pollfd p = {.fd = fd, .events = POLLIN};
        assert_int_equal(poll(&p, 1, 0), 0); /* quiet: no POLLHUP without a writer */
        assert_int_equal(kmsg_drain(k), 0);
        int w = open(path, O_WRONLY | O_CLOEXEC);
        assert_true(w >= 0);
        const char rec[] = "3,7,100,-;first\n SUBSYSTEM=pci\n3,8,200,-;second\n";
        assert_int_equal(write(w, rec, sizeof(rec) - 1), (ssize_t)(sizeof(rec) - 1));
        close(w);
        assert_int_equal(poll(&p, 1, 1000), 1);
        assert_true(p.revents & POLLIN);
        assert_int_equal(kmsg_drain(k), 2);
        assert_string_equal(get(k, 0).text, "first");
        assert_string_equal(get(k, 1).text, "second");
        assert_int_equal(poll(&p, 1, 0), 0); /* the writer gone: still no end-of-file */
        kmsg_close(k);
}

/* The start position: what was there at start is not new, whatever a drain could take
 * at once; torn and bad records after it are skipped and counted. */
static void test_start_position(void **state)
{
        (void)state;
        char root[128], path[160];
        struct kmsg *k;
        struct kmsg_stats st;
        uint64_t seq = 0;
        copy_fixture("start", root, sizeof(root));
        snprintf(path, sizeof(path), "%s/dev/kmsg", root);
        assert_int_equal(kmsg_open(&k, root, 0), 0);
        assert_false(kmsg_start_seq(k, &seq)); /* not set before the first drain */
        assert_int_equal(kmsg_drain_to_start(k, 64), 0);
        assert_true(kmsg_start_seq(k, &seq));
        assert_int_equal(seq, 16); /* the fixture's newest record */
        assert_int_equal(kmsg_index_after(k, seq), kmsg_count(k));
        /* Torn and bad records (a header cut short, no ';', a bare text) between two
         * good ones. */
        append(path, "6,17,3800000000,-;new\n6,18,38\n6,18,3800000001,-\nno header at all\n"
                     "6,19,3800000002,-;newer\n");
        assert_int_equal(kmsg_drain(k), 2);
        size_t i = kmsg_index_after(k, seq);
        assert_int_equal(kmsg_count(k) - i, 2);
        assert_string_equal(get(k, i).text, "new");
        assert_string_equal(get(k, i + 1).text, "newer");
        kmsg_get_stats(k, &st);
        assert_int_equal(st.malformed, 1 + 3); /* the fixture's one, and these */
        assert_true(kmsg_start_seq(k, &seq));
        assert_int_equal(seq, 16); /* the start stays where it was */
        kmsg_close(k);
}

/* An empty log at start: every record after it is new. */
static void test_start_empty(void **state)
{
        (void)state;
        char root[128], path[160];
        struct kmsg *k;
        uint64_t seq;
        snprintf(root, sizeof(root), "%s/empty", tmp);
        snprintf(path, sizeof(path), "%s/dev", root);
        assert_int_equal(mkdir(root, 0700), 0);
        assert_int_equal(mkdir(path, 0700), 0);
        snprintf(path, sizeof(path), "%s/dev/kmsg", root);
        append(path, "");
        assert_int_equal(kmsg_open(&k, root, 0), 0);
        assert_int_equal(kmsg_drain_to_start(k, 64), 0);
        assert_false(kmsg_start_seq(k, &seq));
        kmsg_close(k);
}

static void test_oversize_fixture_line(void **state)
{
        (void)state;
        char root[128], path[160];
        struct kmsg *k;
        struct kmsg_stats st;
        snprintf(root, sizeof(root), "%s/big", tmp);
        snprintf(path, sizeof(path), "%s/dev", root);
        assert_int_equal(mkdir(root, 0755), 0);
        assert_int_equal(mkdir(path, 0755), 0);
        snprintf(path, sizeof(path), "%s/dev/kmsg", root);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs("6,0,1,-;before\n6,1,2,-;", f);
        for (int i = 0; i < 20000; i++)
                fputc('y', f);
        fputs("\n6,2,3,-;after\n", f);
        fclose(f);
        assert_int_equal(kmsg_open(&k, root, 0), 0);
        assert_int_equal(kmsg_drain(k), 2);
        assert_string_equal(get(k, 0).text, "before");
        assert_string_equal(get(k, 1).text, "after");
        kmsg_get_stats(k, &st);
        assert_true(st.oversize >= 1);
        kmsg_close(k);
}

static void test_missing_log(void **state)
{
        (void)state;
        struct kmsg *k;
        char buf[512];
        assert_int_equal(kmsg_open(&k, tmp, 0), 0);
        assert_int_equal(kmsg_drain(k), -ENOENT);
        const char *want = "kernel log not readable (/dev/kmsg: No such file or directory)";
        assert_string_equal(kmsg_error(k), want);
        assert_string_equal(kmsg_take_error(k), want);
        assert_null(kmsg_take_error(k)); /* once */
        assert_string_equal(kmsg_error(k), want);
        assert_int_equal(kmsg_count(k), 0);
        format(k, KMSG_FILTER_GPU, buf, sizeof(buf));
        assert_string_equal(buf, "(kernel log not readable (/dev/kmsg: No such file or "
                                 "directory))\n");
        kmsg_close(k);
        format(NULL, KMSG_FILTER_ALL, buf, sizeof(buf));
        assert_string_equal(buf, "(kernel log not collected)\n");
}

/* Without permission the message says what grants it. As root, the check runs in a
 * child that gives up root first. */
static int permission_check(const char *root)
{
        struct kmsg *k;
        if (kmsg_open(&k, root, 0) < 0)
                return 2;
        const char *e = kmsg_error(k);
        int ok = e &&
                 strcmp(e, "kernel log not readable (/dev/kmsg: Permission denied): run "
                           "as root or grant CAP_SYSLOG") == 0 &&
                 kmsg_drain(k) == -EACCES;
        kmsg_close(k);
        return ok ? 0 : 1;
}

static void test_permission_denied(void **state)
{
        (void)state;
        char root[128], path[160];
        copy_fixture("perm", root, sizeof(root));
        snprintf(path, sizeof(path), "%s/dev/kmsg", root);
        assert_int_equal(chmod(path, 0600), 0);
        if (geteuid() != 0) {
                assert_int_equal(chmod(path, 0), 0);
                assert_int_equal(permission_check(root), 0);
                return;
        }
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                if (setgid(65534) < 0 || setuid(65534) < 0)
                        _exit(3);
                _exit(permission_check(root));
        }
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
}

/* The real device, when this machine lets us read it: records parse and arrive in
 * sequence order. */
static void test_real_device(void **state)
{
        (void)state;
        struct kmsg *k;
        assert_int_equal(kmsg_open(&k, "", 64), 0);
        if (kmsg_error(k)) {
                kmsg_close(k);
                skip();
        }
        int n = kmsg_drain(k);
        assert_true(n > 0);
        assert_int_equal(kmsg_count(k), n > 64 ? 64 : (size_t)n);
        for (size_t i = 1; i < kmsg_count(k); i++)
                assert_true(get(k, i).seq > get(k, i - 1).seq);
        kmsg_close(k);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_parse_record),
            cmocka_unit_test(test_tap_sees_every_record),
            cmocka_unit_test(test_taps_side_by_side),
            cmocka_unit_test(test_parse_record_bounded),
            cmocka_unit_test(test_parse_record_malformed),
            cmocka_unit_test(test_format_time),
            cmocka_unit_test(test_fixture_drain),
            cmocka_unit_test(test_filters),
            cmocka_unit_test(test_filter_last_n),
            cmocka_unit_test(test_ring_wraps),
            cmocka_unit_test(test_long_records),
            cmocka_unit_test(test_appended_lines),
            cmocka_unit_test(test_oversize_fixture_line),
            cmocka_unit_test(test_start_position),
            cmocka_unit_test(test_start_empty),
            cmocka_unit_test(test_missing_log),
            cmocka_unit_test(test_permission_denied),
            cmocka_unit_test(test_real_device),
            cmocka_unit_test(test_poll_fd),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
