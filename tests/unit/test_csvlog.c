/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: daily CSV files (local/csvlog.c) and events.log (core/eventlog.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/magic.h>

#include "local/csvlog.h"
#include "core/eventlog.h"
#include "util/clock.h"
#include "util/fs_commit.h"
#include "util/fssync.h"
#include "util/pfile.h"

#define DAY 86400LL
#define NS  1000000000LL

static char dir[64];

static int setup(void **state)
{
        (void)state;
        setenv("TZ", "UTC", 1);
        tzset();
        snprintf(dir, sizeof(dir), "/tmp/vigil-csvlog-XXXXXX");
        return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
        (void)state;
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        return system(cmd);
}

static void slurp(const char *name, char *buf, size_t cap)
{
        char path[128];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        assert_true(read_file_at(NULL, path, buf, cap) >= 0);
}

static void put_file(const char *name, const char *text)
{
        char path[128];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

/* 2026-12-02 12:00 UTC */
static const int64_t noon = 1796212800LL * NS;

static void test_header_once_and_rotation(void **state)
{
        (void)state;
        struct csvlog l;
        char buf[512];
        csvlog_init(&l, dir, "host", 14);
        assert_int_equal(csvlog_write(&l, noon, "a,b\n", "1,2\n", 4), 0);
        assert_int_equal(csvlog_write(&l, noon + NS, "a,b\n", "3,4\n", 4), 0);
        csvlog_reopen(&l); /* SIGHUP: same file, no second header */
        assert_int_equal(csvlog_write(&l, noon + 2 * NS, "a,b\n", "5,6\n", 4), 0);
        slurp("host-2026-12-02.csv", buf, sizeof(buf));
        assert_string_equal(buf, "a,b\n1,2\n3,4\n5,6\n");
        /* Past midnight: a new file with its own header. */
        assert_int_equal(csvlog_write(&l, noon + 12 * 3600 * NS, "a,b\n", "7,8\n", 4), 0);
        slurp("host-2026-12-03.csv", buf, sizeof(buf));
        assert_string_equal(buf, "a,b\n7,8\n");
        assert_int_equal(l.rows, 4);
        csvlog_close(&l);
}

static void test_torn_line_repaired(void **state)
{
        (void)state;
        struct csvlog l;
        char buf[512];
        put_file("gpu0-2026-12-02.csv", "a,b\n1,2\n3,");
        csvlog_init(&l, dir, "gpu0", 14);
        assert_int_equal(csvlog_write(&l, noon, "a,b\n", "5,6\n", 4), 0);
        assert_int_equal(l.repaired, 2);
        slurp("gpu0-2026-12-02.csv", buf, sizeof(buf));
        assert_string_equal(buf, "a,b\n1,2\n5,6\n");
        csvlog_close(&l);
        /* Not even a whole header: start over. */
        put_file("gpu1-2026-12-02.csv", "a,");
        csvlog_init(&l, dir, "gpu1", 14);
        assert_int_equal(csvlog_write(&l, noon, "a,b\n", "5,6\n", 4), 0);
        slurp("gpu1-2026-12-02.csv", buf, sizeof(buf));
        assert_string_equal(buf, "a,b\n5,6\n");
        csvlog_close(&l);
}

/* An earlier day's file, which no csvlog opens again: repaired by path. */
static void test_repair_by_path(void **state)
{
        (void)state;
        char buf[512], path[128];
        put_file("host-2026-12-01.csv", "a,b\n1,2\n3,");
        snprintf(path, sizeof(path), "%s/host-2026-12-01.csv", dir);
        assert_int_equal(csvlog_repair(path), 2);
        slurp("host-2026-12-01.csv", buf, sizeof(buf));
        assert_string_equal(buf, "a,b\n1,2\n");
        assert_int_equal(csvlog_repair(path), 0); /* whole: left as it is */
        slurp("host-2026-12-01.csv", buf, sizeof(buf));
        assert_string_equal(buf, "a,b\n1,2\n");
        put_file("gpu3-2026-12-01.csv", "time");
        snprintf(path, sizeof(path), "%s/gpu3-2026-12-01.csv", dir);
        assert_int_equal(csvlog_repair(path), 4); /* not even a header: emptied */
        slurp("gpu3-2026-12-01.csv", buf, sizeof(buf));
        assert_string_equal(buf, "");
        snprintf(path, sizeof(path), "%s/no-such.csv", dir);
        assert_int_equal(csvlog_repair(path), -ENOENT);
}

static bool exists(const char *name)
{
        char path[128];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        return access(path, F_OK) == 0;
}

static void test_retention(void **state)
{
        (void)state;
        char name[64];
        /* 20 days of files ending 2026-12-02, plus other prefixes that must stay. */
        for (int d = 0; d < 20; d++) {
                time_t t = (time_t)(noon / NS) - d * DAY;
                struct tm tm;
                gmtime_r(&t, &tm);
                strftime(name, sizeof(name), "pr-%Y-%m-%d.csv", &tm);
                put_file(name, "x\n");
        }
        put_file("other-2026-01-01.csv", "x\n");
        assert_int_equal(csvlog_prune(dir, "pr", 14, noon), 5);
        assert_true(exists("pr-2026-11-18.csv"));
        assert_false(exists("pr-2026-11-17.csv"));
        assert_true(exists("other-2026-01-01.csv"));
        /* A wall clock a year ahead deletes nothing recent: the newest 14 days stay. */
        assert_int_equal(csvlog_prune(dir, "pr", 14, noon + 365 * DAY * NS), 1);
        assert_true(exists("pr-2026-11-19.csv"));
        assert_true(exists("pr-2026-12-02.csv"));
}

static void test_eventlog(void **state)
{
        (void)state;
        struct eventlog *el;
        char buf[512];
        assert_int_equal(eventlog_open(&el, dir), 0);
        eventlog_printf(el, noon + 123456000, "type=TEST value=%d", 42);
        eventlog_set_paused(el, 1);
        eventlog_printf(el, noon, "dropped");
        eventlog_set_paused(el, 0);
        assert_int_equal(eventlog_lines(el), 1);
        assert_int_equal(eventlog_write_errors(el), 1);
        eventlog_close(el);
        slurp("events.log", buf, sizeof(buf));
        assert_string_equal(buf, "2026-12-02T12:00:00.123456 type=TEST value=42\n");
}

/* What a tap saw: the lines' text and times. */
struct tapped {
        unsigned n;
        char text[4][64];
        int64_t real_ns[4];
};

static void tap(void *arg, int64_t real_ns, const char *text, size_t len)
{
        struct tapped *t = arg;
        assert_int_equal(strlen(text), len);
        if (t->n < 4) {
                snprintf(t->text[t->n], sizeof(t->text[0]), "%s", text);
                t->real_ns[t->n++] = real_ns;
        }
}

/* The tap sees every line, written or paused; a file-less log writes nothing. */
static void test_eventlog_tap(void **state)
{
        (void)state;
        struct eventlog *el;
        struct tapped t = {0};
        char buf[512], path[128];
        snprintf(path, sizeof(path), "%s/events.log", dir);
        unlink(path);
        assert_int_equal(eventlog_open(&el, dir), 0);
        eventlog_set_tap(el, tap, &t);
        eventlog_printf(el, noon, "type=A n=%d", 1);
        eventlog_set_paused(el, 1);
        eventlog_printf(el, noon + 5, "type=B");
        eventlog_set_paused(el, 0);
        eventlog_close(el);
        slurp("events.log", buf, sizeof(buf));
        assert_string_equal(buf, "2026-12-02T12:00:00.000000 type=A n=1\n");
        assert_int_equal(t.n, 2);
        assert_string_equal(t.text[0], "type=A n=1");
        assert_string_equal(t.text[1], "type=B");
        assert_true(t.real_ns[1] == noon + 5);

        assert_int_equal(eventlog_open_none(&el), 0);
        eventlog_set_tap(el, tap, &t);
        eventlog_printf(el, noon, "type=C");
        eventlog_reopen(el);
        assert_int_equal(eventlog_sync(el), 0);
        assert_int_equal(eventlog_lines(el), 0);
        assert_int_equal(eventlog_write_errors(el), 0);
        eventlog_close(el);
        assert_int_equal(t.n, 3);
        assert_string_equal(t.text[2], "type=C");
        slurp("events.log", buf, sizeof(buf));
        assert_string_equal(buf, "2026-12-02T12:00:00.000000 type=A n=1\n");
}

/* --csv FILE: one file whatever the day, directories made, a file with other columns
 * kept aside; a sync only when something was written. */
/* logrotate's copytruncate: the file emptied under an open log. Rows keep landing at
 * its new end; the size is looked at once a second, and the look puts the header back
 * in front of the rows written since the cut. A file emptied and looked at at once gets
 * its header before the next row. */
static void cut(const char *name)
{
        char path[128];
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        assert_int_equal(truncate(path, 0), 0);
}

static void test_copytruncate(void **state)
{
        (void)state;
        struct csvlog l;
        char buf[512];
        csvlog_init(&l, dir, "gpu3", 14);
        assert_int_equal(csvlog_write(&l, noon, "a,b\n", "1,2\n", 4), 0);
        assert_int_equal(csvlog_write(&l, noon + NS / 10, "a,b\n", "3,4\n", 4), 0);
        cut("gpu3-2026-12-02.csv");
        /* Within the second of the last look: the rows go in without a look. */
        assert_int_equal(csvlog_write(&l, noon + 2 * NS / 10, "a,b\n", "5,6\n", 4), 0);
        assert_int_equal(csvlog_write(&l, noon + 3 * NS / 10, "a,b\n", "7,8\n", 4), 0);
        slurp("gpu3-2026-12-02.csv", buf, sizeof(buf));
        assert_string_equal(buf, "5,6\n7,8\n");
        /* A second on: the look finds the cut and puts the header in front. */
        assert_int_equal(csvlog_write(&l, noon + 12 * NS / 10, "a,b\n", "9,0\n", 4), 0);
        slurp("gpu3-2026-12-02.csv", buf, sizeof(buf));
        assert_string_equal(buf, "a,b\n5,6\n7,8\n9,0\n");
        assert_int_equal(l.size, strlen(buf));
        /* Emptied, and nothing written before the next look: the header, then the row. */
        cut("gpu3-2026-12-02.csv");
        assert_int_equal(csvlog_write(&l, noon + 23 * NS / 10, "a,b\n", "1,1\n", 4), 0);
        slurp("gpu3-2026-12-02.csv", buf, sizeof(buf));
        assert_string_equal(buf, "a,b\n1,1\n");
        /* Another program appended: followed, not cut. */
        put_file("gpu3-2026-12-02.csv", "a,b\n1,1\nx,y\n");
        assert_int_equal(csvlog_write(&l, noon + 34 * NS / 10, "a,b\n", "2,2\n", 4), 0);
        slurp("gpu3-2026-12-02.csv", buf, sizeof(buf));
        assert_string_equal(buf, "a,b\n1,1\nx,y\n2,2\n");
        assert_int_equal(l.size, strlen(buf));
        assert_int_equal(l.rows, 7);
        csvlog_close(&l);
}

/* One sync round: two logs or more that got lines share one syncfs at its end (whole
 * is forced here, so the test does not depend on the file system /tmp is on); one is
 * fdatasync'ed; a clean round makes none; a file on another device is synced by
 * its caller at once. */
static void test_sync_round(void **state)
{
        (void)state;
        assert_true(fssync_whole_fs(EXT4_SUPER_MAGIC));
        assert_true(fssync_whole_fs(XFS_SUPER_MAGIC));
        assert_false(fssync_whole_fs(FUSE_SUPER_MAGIC)); /* its sync_fs reaches no server */
        assert_false(fssync_whole_fs(TMPFS_MAGIC));
        assert_false(fssync_whole_fs(NFS_SUPER_MAGIC));
        struct fssync fs;
        assert_int_equal(fssync_open(&fs, dir, FSSYNC_WHOLE_ALWAYS), 0);
        fs.whole = true;
        struct csvlog l[3];
        const char *name[3] = {"gpu0", "gpu1", "host"};
        int64_t now = (int64_t)time(NULL) * 1000000000LL;
        for (int i = 0; i < 3; i++) {
                csvlog_init(&l[i], dir, name[i], 7);
                assert_int_equal(csvlog_write(&l[i], now, "h\n", "1\n", 2), 0);
        }
        fssync_begin(&fs);
        for (int i = 0; i < 3; i++) {
                assert_int_equal(csvlog_sync_in(&l[i], &fs), 0);
                assert_true(l[i].sync.unsynced); /* synced at the round's end */
        }
        assert_int_equal(fssync_end(&fs), 0);
        assert_int_equal(fs.calls, 1); /* three files, one call */
        for (int i = 0; i < 3; i++)
                assert_false(l[i].sync.unsynced);
        fssync_begin(&fs); /* nothing written since: nothing taken, no call */
        for (int i = 0; i < 3; i++)
                assert_int_equal(csvlog_sync_in(&l[i], &fs), 0);
        assert_int_equal(fs.n, 0);
        assert_int_equal(fssync_end(&fs), 0);
        assert_int_equal(fs.calls, 1);
        /* Two files (the host and one GPU): one syncfs too. */
        for (int i = 0; i < 2; i++)
                assert_int_equal(csvlog_write(&l[i], now, "h\n", "2\n", 2), 0);
        fssync_begin(&fs);
        for (int i = 0; i < 2; i++)
                assert_int_equal(csvlog_sync_in(&l[i], &fs), 0);
        assert_int_equal(fs.n, 2);
        assert_int_equal(fssync_end(&fs), 0);
        assert_int_equal(fs.calls, 2);
        assert_false(l[0].sync.unsynced);
        assert_false(l[1].sync.unsynced);
        /* One file (a Pi's host log): its fdatasync, no syncfs (the in-place metadata
         * writes cost an SD card more than they save). */
        assert_int_equal(csvlog_write(&l[2], now, "h\n", "2\n", 2), 0);
        fssync_begin(&fs);
        assert_int_equal(csvlog_sync_in(&l[2], &fs), 0);
        assert_int_equal(fs.n, 1);
        assert_int_equal(fssync_end(&fs), 0);
        assert_int_equal(fs.calls, 2);
        assert_false(l[2].sync.unsynced);
        /* Outside a round, on another device, or without a round at all: the file's
         * own fdatasync, at once. */
        assert_int_equal(csvlog_write(&l[0], now, "h\n", "3\n", 2), 0);
        assert_int_equal(csvlog_sync_in(&l[0], &fs), 0);
        assert_false(l[0].sync.unsynced);
        fs.dev = l[0].dev + 1;
        assert_int_equal(csvlog_write(&l[0], now, "h\n", "4\n", 2), 0);
        fssync_begin(&fs);
        assert_int_equal(csvlog_sync_in(&l[0], &fs), 0);
        assert_false(l[0].sync.unsynced);
        assert_int_equal(fs.n, 0);
        assert_int_equal(fssync_end(&fs), 0);
        fs.dev = l[0].dev;
        /* Where syncfs is not durable, three files are fdatasync'ed each. */
        fs.whole = false;
        for (int i = 0; i < 3; i++)
                assert_int_equal(csvlog_write(&l[i], now, "h\n", "5\n", 2), 0);
        fssync_begin(&fs);
        for (int i = 0; i < 3; i++)
                assert_int_equal(csvlog_sync_in(&l[i], &fs), 0);
        assert_int_equal(fssync_end(&fs), 0);
        assert_int_equal(fs.calls, 2);
        for (int i = 0; i < 3; i++)
                assert_false(l[i].sync.unsynced);
        assert_int_equal(csvlog_write(&l[1], now, "h\n", "6\n", 2), 0);
        assert_int_equal(csvlog_sync_in(&l[1], NULL), 0);
        assert_false(l[1].sync.unsynced);
        for (int i = 0; i < 3; i++)
                csvlog_close(&l[i]);
        fssync_close(&fs);
        assert_int_equal(fs.dirfd, -1);
}

/* The default round takes syncfs only while the machine's Dirty + Writeback is at most
 * FSSYNC_QUIET_MAX_KB; above it (a checkpoint in the page cache), an fdatasync each and
 * the round counted busy; a meminfo that cannot be read counts as busy. Never: no
 * syncfs, ever. */
static void test_sync_quiet(void **state)
{
        (void)state;
        struct fssync fs;
        assert_int_equal(fssync_open(&fs, dir, FSSYNC_WHOLE_QUIET), 0);
        fs.whole = true; /* whatever /tmp is */
        assert_true(fssync_wants_unwritten(&fs));
        fssync_unwritten(&fs, 96);
        struct csvlog l[3];
        const char *name[3] = {"gpu0", "gpu1", "host"};
        int64_t now = (int64_t)time(NULL) * 1000000000LL;
        for (int i = 0; i < 3; i++)
                csvlog_init(&l[i], dir, name[i], 7);
                /* round: the three logs get a line each and are synced in one round */
#define ROUND(tag)                                                                                 \
        do {                                                                                       \
                fssync_begin(&fs);                                                                 \
                for (int i = 0; i < 3; i++) {                                                      \
                        assert_int_equal(csvlog_write(&l[i], now, "h\n", tag "\n", 2), 0);         \
                        assert_int_equal(csvlog_sync_in(&l[i], &fs), 0);                           \
                }                                                                                  \
                assert_int_equal(fssync_end(&fs), 0);                                              \
                for (int i = 0; i < 3; i++)                                                        \
                        assert_false(l[i].sync.unsynced);                                          \
        } while (0)
        ROUND("1");
        assert_int_equal(fs.calls, 1);
        assert_int_equal(fs.busy, 0);
        fssync_unwritten(&fs, FSSYNC_QUIET_MAX_KB - 100 + 100); /* at the bound: still quiet */
        ROUND("2");
        assert_int_equal(fs.calls, 2);
        fssync_unwritten(&fs, 2000000); /* 2 GB unwritten: each file on its own */
        ROUND("3");
        assert_int_equal(fs.calls, 2);
        assert_int_equal(fs.busy, 1);
        fssync_unwritten(&fs, 100 + FSSYNC_QUIET_MAX_KB); /* being written counts too */
        ROUND("4");
        assert_int_equal(fs.calls, 2);
        assert_int_equal(fs.busy, 2);
        fssync_unwritten(&fs, -1); /* meminfo could not be read */
        ROUND("5");
        assert_int_equal(fs.calls, 2);
        assert_int_equal(fs.busy, 3);
        for (int i = 0; i < 3; i++)
                csvlog_close(&l[i]);
        fssync_close(&fs);
        /* --sync-per-file: three files, an fdatasync each, never a syncfs */
        assert_int_equal(fssync_open(&fs, dir, FSSYNC_WHOLE_NEVER), 0);
        fs.whole = true;
        for (int i = 0; i < 3; i++)
                csvlog_init(&l[i], dir, name[i], 7);
        ROUND("6");
        assert_int_equal(fs.calls, 0);
        assert_int_equal(fs.busy, 0);
#undef ROUND
        for (int i = 0; i < 3; i++)
                csvlog_close(&l[i]);
        fssync_close(&fs);
}

/* ext4's options as /proc/fs/ext4/DEV/options lists them (one a line, defaults
 * included): a commit bound only with data=ordered, barriers and commit=N. */
static void test_fs_commit(void **state)
{
        (void)state;
        const char *pi = "rw\nbsddf\ndelalloc\nbarrier\nauto_da_alloc\ncommit=5\n"
                         "data=ordered\ninode_readahead_blks=32\n";
        assert_int_equal(fs_commit_parse(pi, strlen(pi)), 5 * NSEC_PER_SEC);
        const char *slow = "rw\nbarrier\ncommit=30\ndata=ordered\n";
        assert_int_equal(fs_commit_parse(slow, strlen(slow)), 30 * NSEC_PER_SEC);
        const char *nojournal = "rw\nbarrier\ncommit=5\nstripe=0\n"; /* no data= line */
        assert_int_equal(fs_commit_parse(nojournal, strlen(nojournal)), 0);
        const char *wb = "rw\nbarrier\ncommit=5\ndata=writeback\n";
        assert_int_equal(fs_commit_parse(wb, strlen(wb)), 0);
        const char *nob = "rw\nnobarrier\ncommit=5\ndata=ordered\n";
        assert_int_equal(fs_commit_parse(nob, strlen(nob)), 0);
        const char *bad = "rw\nbarrier\ncommit=5s\ndata=ordered\n";
        assert_int_equal(fs_commit_parse(bad, strlen(bad)), 0);
        const char *zero = "rw\nbarrier\ncommit=0\ndata=ordered\n";
        assert_int_equal(fs_commit_parse(zero, strlen(zero)), 0);
        const char *none = "rw\nbarrier\ndata=ordered\n";
        assert_int_equal(fs_commit_parse(none, strlen(none)), 0);
        const char *prefix = "rw\nbarrier_x\ncommit=5\ndata=ordered_x\n";
        assert_int_equal(fs_commit_parse(prefix, strlen(prefix)), 0);
        assert_int_equal(fs_commit_parse("", 0), 0);
}

/* A long interval over a commit bound: periodic rounds every interval minus the bound
 * write data only and leave the file unsynced; a full round fdatasyncs it. A short
 * interval, or no bound, keeps full rounds at the interval. */
static void test_sync_light(void **state)
{
        (void)state;
        struct fssync fs;
        assert_int_equal(fssync_open(&fs, dir, FSSYNC_WHOLE_QUIET), 0);
        fs.commit_ns = 0;
        assert_int_equal(fssync_cadence(&fs, 60 * NSEC_PER_SEC), 60 * NSEC_PER_SEC);
        assert_false(fs.light);
        fs.commit_ns = 5 * NSEC_PER_SEC;
        assert_int_equal(fssync_cadence(&fs, 1 * NSEC_PER_SEC), 1 * NSEC_PER_SEC);
        assert_false(fs.light);
        assert_int_equal(fssync_cadence(&fs, 9 * NSEC_PER_SEC), 9 * NSEC_PER_SEC);
        assert_false(fs.light);
        assert_int_equal(fssync_cadence(&fs, 10 * NSEC_PER_SEC), 10 * NSEC_PER_SEC);
        assert_false(fs.light); /* 10 - 5 - 1 leaves less than the commit interval */
        assert_int_equal(fssync_cadence(&fs, 11 * NSEC_PER_SEC), 5 * NSEC_PER_SEC);
        assert_true(fs.light);
        assert_int_equal(fssync_cadence(&fs, 60 * NSEC_PER_SEC), 54 * NSEC_PER_SEC);
        assert_true(fs.light);
        assert_int_equal(fssync_cadence(NULL, 7), 7);
        struct csvlog l;
        int64_t now = (int64_t)time(NULL) * 1000000000LL;
        csvlog_init(&l, dir, "light", 7);
        assert_int_equal(csvlog_write(&l, now, "h\n", "1\n", 2), 0);
        fssync_begin_periodic(&fs);
        assert_int_equal(csvlog_sync_in(&l, &fs), 0);
        assert_int_equal(fssync_end(&fs), 0);
        assert_int_equal(fs.light_calls, 1);
        assert_int_equal(fs.calls, 0);
        assert_true(l.sync.unsynced); /* the data only: a full round still owes the sync */
        fssync_begin(&fs);            /* a snapshot's or the stop's */
        assert_int_equal(csvlog_sync_in(&l, &fs), 0);
        assert_int_equal(fssync_end(&fs), 0);
        assert_int_equal(fs.light_calls, 1);
        assert_false(l.sync.unsynced);
        fs.light = false; /* a short interval: periodic rounds are full */
        assert_int_equal(csvlog_write(&l, now, "h\n", "2\n", 2), 0);
        fssync_begin_periodic(&fs);
        assert_int_equal(csvlog_sync_in(&l, &fs), 0);
        assert_int_equal(fssync_end(&fs), 0);
        assert_int_equal(fs.light_calls, 1);
        assert_false(l.sync.unsynced);
        csvlog_close(&l);
        fssync_close(&fs);
}

/* Watch rounds (util/fssync.h): a file pending for less than half its due time is not
 * looked at; a look finds it dirty until something writes it out (here another
 * descriptor's fdatasync, as the kernel's flusher would), then it owes nothing until
 * its next row, and still owes a full round's sync; a file still dirty at its due time
 * gets its data written. On a disk file system (/var/tmp): tmpfs pages never leave the
 * dirty state. */
static void test_sync_watch(void **state)
{
        (void)state;
        char wdir[64];
        snprintf(wdir, sizeof(wdir), "/var/tmp/vigil-watch-XXXXXX");
        assert_non_null(mkdtemp(wdir));
        struct fssync fs;
        assert_int_equal(fssync_open(&fs, wdir, FSSYNC_WHOLE_QUIET), 0);
        fs.commit_ns = 5 * NSEC_PER_SEC;
        assert_int_equal(fssync_cadence(&fs, 60 * NSEC_PER_SEC), 54 * NSEC_PER_SEC);
        assert_false(fssync_watch_setup(&fs, 53 * NSEC_PER_SEC)); /* no time for a look */
        assert_false(fssync_watching(&fs));
        assert_true(fssync_watch_setup(&fs, 5 * NSEC_PER_SEC));
        assert_int_equal(fs.due_ns, 49 * NSEC_PER_SEC);
        struct csvlog l;
        int64_t now = (int64_t)time(NULL) * 1000000000LL;
        csvlog_init(&l, wdir, "watch", 7);
        assert_int_equal(csvlog_write(&l, now, "h\n", "1\n", 2), 0);
        int64_t t0 = l.sync.pending_ns;
        assert_true(t0 > 0 && l.sync.unsynced);
        assert_int_equal(csvlog_write(&l, now, "h\n", "2\n", 2), 0);
        assert_int_equal(l.sync.pending_ns, t0); /* from the first line not written out */
#define WATCH_AT(secs)                                                                             \
        do {                                                                                       \
                fssync_begin_watch(&fs, t0 + (int64_t)((secs)*NSEC_PER_SEC));                      \
                assert_int_equal(csvlog_sync_in(&l, &fs), 0);                                      \
                assert_int_equal(fssync_end(&fs), 0);                                              \
        } while (0)
        WATCH_AT(20); /* under half the due time: no look */
        assert_int_equal(fs.looks, 0);
        WATCH_AT(25);
        if (!fssync_watching(&fs)) { /* cachestat(2) missing: light rounds again */
                assert_int_equal(fs.looks, 1);
                csvlog_close(&l);
                fssync_close(&fs);
                return;
        }
        assert_int_equal(fs.looks, 1);
        assert_int_equal(fs.seen, 0); /* dirty: just written */
        assert_int_equal(l.sync.pending_ns, t0);
        WATCH_AT(25.5); /* a second between looks */
        assert_int_equal(fs.looks, 1);
        char path[1300];
        snprintf(path, sizeof(path), "%s", l.path);
        int other = open(path, O_RDONLY | O_CLOEXEC);
        assert_true(other >= 0);
        assert_int_equal(fdatasync(other), 0);
        close(other);
        WATCH_AT(27);
        assert_int_equal(fs.looks, 2);
        assert_int_equal(fs.seen, 1);
        assert_int_equal(l.sync.pending_ns, 0);
        assert_true(l.sync.unsynced); /* a full round still owes the size's commit */
        assert_int_equal(fs.light_calls, 0);
        WATCH_AT(100); /* nothing pending: nothing to look at or write */
        assert_int_equal(fs.looks, 2);
        assert_int_equal(fs.light_calls, 0);
        assert_int_equal(csvlog_write(&l, now, "h\n", "3\n", 2), 0);
        t0 = l.sync.pending_ns;
        WATCH_AT(47.5);
        assert_int_equal(fs.light_calls, 0);
        assert_int_equal(fs.looks, 3);
        WATCH_AT(49); /* due, and dirty at the look: written */
        assert_int_equal(fs.looks, 4);
        assert_int_equal(fs.light_calls, 1);
        assert_int_equal(l.sync.pending_ns, 0);
        assert_int_equal(fs.errors, 0);
#undef WATCH_AT
        fssync_begin(&fs); /* a full round clears it all */
        assert_int_equal(csvlog_sync_in(&l, &fs), 0);
        assert_int_equal(fssync_end(&fs), 0);
        assert_false(l.sync.unsynced);
        assert_int_equal(l.sync.pending_ns, 0);
        fs.commit_ns = 0; /* no commit bound: no light rounds, no watch */
        (void)fssync_cadence(&fs, 60 * NSEC_PER_SEC);
        assert_false(fssync_watch_setup(&fs, 5 * NSEC_PER_SEC));
        csvlog_close(&l);
        fssync_close(&fs);
        unlink(path);
        rmdir(wdir);
}

static void test_fixed_file(void **state)
{
        (void)state;
        struct csvlog l;
        char buf[512], path[128];
        snprintf(path, sizeof(path), "%s/sub/dir/monitor.csv", dir);
        csvlog_init_file(&l, path);
        assert_false(l.sync.unsynced);
        assert_int_equal(csvlog_write(&l, noon, "a,b\n", "1,2\n", 4), 0);
        assert_true(l.sync.unsynced);
        assert_int_equal(csvlog_sync(&l), 0);
        assert_false(l.sync.unsynced);
        assert_int_equal(csvlog_sync(&l), 0); /* clean: nothing to do */
        /* Past midnight: the same file, no second header, nothing pruned. */
        assert_int_equal(csvlog_write(&l, noon + 12 * 3600 * NS, "a,b\n", "3,4\n", 4), 0);
        csvlog_close(&l);
        csvlog_init_file(&l, path); /* a second run appends */
        assert_int_equal(csvlog_write(&l, noon + DAY, "a,b\n", "5,6\n", 4), 0);
        csvlog_close(&l);
        slurp("sub/dir/monitor.csv", buf, sizeof(buf));
        assert_string_equal(buf, "a,b\n1,2\n3,4\n5,6\n");
        assert_false(l.moved_aside);

        /* Other columns (another core count, the reference's file): kept as .old. */
        csvlog_init_file(&l, path);
        assert_int_equal(csvlog_write(&l, noon, "a,b,c\n", "7,8,9\n", 6), 0);
        assert_true(l.moved_aside);
        csvlog_close(&l);
        slurp("sub/dir/monitor.csv", buf, sizeof(buf));
        assert_string_equal(buf, "a,b,c\n7,8,9\n");
        slurp("sub/dir/monitor.csv.old", buf, sizeof(buf));
        assert_string_equal(buf, "a,b\n1,2\n3,4\n5,6\n");

        /* A second and a third change: each old file gets a name of its own, none is
         * overwritten. */
        csvlog_init_file(&l, path);
        assert_int_equal(csvlog_write(&l, noon, "a\n", "1\n", 2), 0);
        assert_true(l.moved_aside);
        assert_non_null(strstr(l.moved_to, "monitor.csv.old.1"));
        csvlog_close(&l);
        csvlog_init_file(&l, path);
        assert_int_equal(csvlog_write(&l, noon, "b\n", "2\n", 2), 0);
        assert_non_null(strstr(l.moved_to, "monitor.csv.old.2"));
        csvlog_close(&l);
        slurp("sub/dir/monitor.csv.old", buf, sizeof(buf));
        assert_string_equal(buf, "a,b\n1,2\n3,4\n5,6\n");
        slurp("sub/dir/monitor.csv.old.1", buf, sizeof(buf));
        assert_string_equal(buf, "a,b,c\n7,8,9\n");
        slurp("sub/dir/monitor.csv.old.2", buf, sizeof(buf));
        assert_string_equal(buf, "a\n1\n");
        slurp("sub/dir/monitor.csv", buf, sizeof(buf));
        assert_string_equal(buf, "b\n2\n");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_header_once_and_rotation),
            cmocka_unit_test(test_torn_line_repaired),
            cmocka_unit_test(test_repair_by_path),
            cmocka_unit_test(test_retention),
            cmocka_unit_test(test_fixed_file),
            cmocka_unit_test(test_sync_round),
            cmocka_unit_test(test_sync_quiet),
            cmocka_unit_test(test_fs_commit),
            cmocka_unit_test(test_sync_light),
            cmocka_unit_test(test_sync_watch),
            cmocka_unit_test(test_copytruncate),
            cmocka_unit_test(test_eventlog),
            cmocka_unit_test(test_eventlog_tap),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
