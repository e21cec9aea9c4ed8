/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: snapshot files, the rate limiter and the crash follow-ups
 * (detect/snapshot.c, detect/snapshot_limit.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "detect/snapshot.h"
#include "util/clock.h"
#include "util/pfile.h"

#define SEC NSEC_PER_SEC
/* 2026-12-02 12:00:00.123456789 UTC */
static const int64_t noon = 1796212800LL * SEC + 123456789;

static char dir[64];

static int setup(void **state)
{
        (void)state;
        setenv("TZ", "UTC", 1);
        tzset();
        snprintf(dir, sizeof(dir), "/tmp/vigil-snap-XXXXXX");
        return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
        (void)state;
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        return system(cmd);
}

static int clean(void **state)
{
        (void)state;
        char cmd[256];
        snprintf(cmd, sizeof(cmd), "rm -rf %s/crashes %s/spikes %s/incidents", dir, dir, dir);
        return system(cmd);
}

/* The names in DIR/sub, sorted, '|'-joined (hidden ones too). */
static void list(const char *sub, char *out, size_t cap)
{
        char path[128], names[16][256];
        size_t n = 0;
        snprintf(path, sizeof(path), "%s/%s", dir, sub);
        out[0] = '\0';
        DIR *d = opendir(path);
        assert_non_null(d);
        struct dirent *e;
        while ((e = readdir(d)) && n < 16)
                if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                        snprintf(names[n++], sizeof(names[0]), "%s", e->d_name);
        closedir(d);
        qsort(names, n, sizeof(names[0]), (int (*)(const void *, const void *))strcmp);
        for (size_t i = 0; i < n; i++) {
                if (i)
                        strncat(out, "|", cap - strlen(out) - 1);
                strncat(out, names[i], cap - strlen(out) - 1);
        }
}

static const struct snapshot_header gpu_header = {
    .title = "GPU CRASH DETECTED",
    .real_ns = noon,
    .gpu_name = "NVIDIA GeForce RTX 5090",
    .gpu_pci = "00000000:01:00.0",
    .error = "Event: XidCriticalError",
    .uptime_s = 3600,
    .samples = 36000,
    .peak_temp_c = 83.4,
    .peak_power_w = 575.5,
    .event_number = 2,
    .power_breaches = 1,
    .fan_inversions = 4,
    .spurious_throttles = 0,
};

static const char gpu_header_text[] = "=== GPU CRASH DETECTED ===\n"
                                      "Time: 2026-12-02T12:00:00.123456+00:00\n"
                                      "Script: vigil v" VIGIL_VERSION "\n"
                                      "GPU: NVIDIA GeForce RTX 5090 (00000000:01:00.0)\n"
                                      "Error: Event: XidCriticalError\n"
                                      "Uptime: 3600s, 36000 samples\n"
                                      "Peaks: 83C / 576W\n"
                                      "Event #: 2\n"
                                      "Pwr breach:1 Fan inv:4 Spur throt:0\n"
                                      "\n";

static void test_header(void **state)
{
        (void)state;
        char buf[1024];
        struct strbuf sb;
        sb_init_fixed(&sb, buf, sizeof(buf));
        snapshot_format_header(&sb, &gpu_header);
        assert_string_equal(buf, gpu_header_text);
        /* No error line, missing peaks. */
        struct snapshot_header h = gpu_header;
        h.title = "FAN SPIKE DETECTED";
        h.error = "";
        h.peak_temp_c = NAN;
        h.peak_power_w = NAN;
        sb_init_fixed(&sb, buf, sizeof(buf));
        snapshot_format_header(&sb, &h);
        assert_string_equal(buf, "=== FAN SPIKE DETECTED ===\n"
                                 "Time: 2026-12-02T12:00:00.123456+00:00\n"
                                 "Script: vigil v" VIGIL_VERSION "\n"
                                 "GPU: NVIDIA GeForce RTX 5090 (00000000:01:00.0)\n"
                                 "Uptime: 3600s, 36000 samples\n"
                                 "Peaks: n/a / n/a\n"
                                 "Event #: 2\n"
                                 "Pwr breach:1 Fan inv:4 Spur throt:0\n"
                                 "\n");
        /* A Raspberry Pi incident: no GPU lines, extra lines before the blank one. */
        struct snapshot_header pi = {
            .title = "INCIDENT",
            .real_ns = noon,
            .error = "under-voltage",
            .uptime_s = 59,
            .samples = 60,
            .event_number = 1,
            .extra_lines = "Throttled: 0x50005\n",
        };
        sb_init_fixed(&sb, buf, sizeof(buf));
        snapshot_format_header(&sb, &pi);
        assert_string_equal(buf, "=== INCIDENT ===\n"
                                 "Time: 2026-12-02T12:00:00.123456+00:00\n"
                                 "Script: vigil v" VIGIL_VERSION "\n"
                                 "Error: under-voltage\n"
                                 "Uptime: 59s, 60 samples\n"
                                 "Event #: 1\n"
                                 "Throttled: 0x50005\n"
                                 "\n");
}

static void test_write_and_commit(void **state)
{
        (void)state;
        struct snapshot *s;
        char path[256], names[512], buf[4096];
        assert_int_equal(snapshot_open(&s, dir, SNAPSHOT_CRASH, noon), 0);
        snapshot_header(s, &gpu_header);
        snapshot_section(s, "Last 50 telemetry readings");
        snapshot_puts(s, "  a,b\n");
        snapshot_section(s, "dmesg (last 200 lines)");
        snapshot_printf(s, "[%5d.%06d] %s", 1, 2, "no newline at the end");
        snapshot_section(s, "Empty");
        snapshot_section(s, "System load");
        snapshot_write(s, "x\n", 2);
        /* Never half-present: only the hidden temporary file exists so far. */
        list("crashes", names, sizeof(names));
        assert_string_equal(names, ".crash-20261202-120000.tmp");
        assert_int_equal(snapshot_commit(s, path, sizeof(path)), 0);
        char want[300];
        snprintf(want, sizeof(want), "%s/crashes/crash-20261202-120000.log", dir);
        assert_string_equal(path, want);
        list("crashes", names, sizeof(names));
        assert_string_equal(names, "crash-20261202-120000.log");
        assert_true(read_file_at(NULL, path, buf, sizeof(buf)) > 0);
        char expect[2048];
        snprintf(expect, sizeof(expect),
                 "%s=== Last 50 telemetry readings ===\n"
                 "  a,b\n"
                 "\n=== dmesg (last 200 lines) ===\n"
                 "[    1.000002] no newline at the end\n"
                 "\n=== Empty ===\n"
                 "\n=== System load ===\n"
                 "x\n",
                 gpu_header_text);
        assert_string_equal(buf, expect);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 0777, 0640);
        snprintf(path, sizeof(path), "%s/crashes", dir);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 0777, 0750);
}

static void test_same_second_names(void **state)
{
        (void)state;
        struct snapshot *s;
        char path[256], names[512];
        for (int i = 0; i < 3; i++) {
                assert_int_equal(snapshot_open(&s, dir, SNAPSHOT_SPIKE, noon), 0);
                snapshot_printf(s, "spike %d\n", i);
                assert_int_equal(snapshot_commit(s, path, sizeof(path)), 0);
        }
        list("spikes", names, sizeof(names));
        assert_string_equal(names, "spike-20261202-120000-2.log|spike-20261202-120000-3.log|"
                                   "spike-20261202-120000.log");
        char buf[64];
        assert_true(read_file_at(NULL, path, buf, sizeof(buf)) > 0);
        assert_string_equal(buf, "spike 2\n");
        /* A stale temporary file from a crash mid-write is replaced. */
        snprintf(path, sizeof(path), "%s/spikes/.spike-20261202-120001.tmp", dir);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs("stale", f);
        fclose(f);
        assert_int_equal(snapshot_open(&s, dir, SNAPSHOT_SPIKE, noon + SEC), 0);
        snapshot_puts(s, "fresh\n");
        assert_int_equal(snapshot_commit(s, NULL, 0), 0);
        snprintf(path, sizeof(path), "%s/spikes/spike-20261202-120001.log", dir);
        assert_true(read_file_at(NULL, path, buf, sizeof(buf)) > 0);
        assert_string_equal(buf, "fresh\n");
}

static void test_abort_and_named(void **state)
{
        (void)state;
        struct snapshot *s;
        char path[256], names[512];
        assert_int_equal(snapshot_open(&s, dir, SNAPSHOT_INCIDENT, noon), 0);
        snapshot_puts(s, "partial");
        snapshot_abort(s);
        snapshot_abort(NULL);
        list("incidents", names, sizeof(names));
        assert_string_equal(names, "");
        assert_int_equal(
            snapshot_open_named(&s, dir, SNAPSHOT_CRASH, "crash-20261202-120000-followup-10s"), 0);
        assert_int_equal(snapshot_commit(s, path, sizeof(path)), 0);
        list("crashes", names, sizeof(names));
        assert_string_equal(names, "crash-20261202-120000-followup-10s.log");
        static const char *const bad[] = {"", ".hidden", "../escape", "a/b"};
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                assert_int_equal(snapshot_open_named(&s, dir, SNAPSHOT_CRASH, bad[i]), -EINVAL);
        char longname[200];
        memset(longname, 'n', sizeof(longname) - 1);
        longname[sizeof(longname) - 1] = '\0';
        assert_int_equal(snapshot_open_named(&s, dir, SNAPSHOT_CRASH, longname), -EINVAL);
        assert_int_equal(snapshot_open(&s, dir, SNAPSHOT_KIND_COUNT, noon), -EINVAL);
        snprintf(path, sizeof(path), "%s/missing/dir", dir);
        assert_int_equal(snapshot_open(&s, path, SNAPSHOT_CRASH, noon), -ENOENT);
        assert_string_equal(snapshot_dir_name(SNAPSHOT_INCIDENT), "incidents");
        assert_string_equal(snapshot_prefix(SNAPSHOT_SPIKE), "spike");
        assert_null(snapshot_prefix(SNAPSHOT_KIND_COUNT));
}

static void test_truncation(void **state)
{
        (void)state;
        struct snapshot *s;
        char path[256], buf[2048];
        assert_int_equal(snapshot_open(&s, dir, SNAPSHOT_CRASH, noon), 0);
        snapshot_set_limit(s, 1000);
        for (int i = 0; i < 100; i++)
                snapshot_printf(s, "line %02d 0123456789012345678901234567890123456789\n", i);
        snapshot_section(s, "after the bound");
        assert_true(snapshot_truncated(s));
        assert_true(snapshot_bytes(s) <= 1000);
        assert_int_equal(snapshot_commit(s, path, sizeof(path)), 0);
        int n = read_file_at(NULL, path, buf, sizeof(buf));
        assert_true(n > 0 && n <= 1000);
        /* Whole lines, then the note. 49 bytes a line; 64 are kept free for the note. */
        const char *note = "line 18 0123456789012345678901234567890123456789\n"
                           "(snapshot truncated at 1000 bytes)\n";
        assert_string_equal(buf + n - strlen(note), note);
        assert_int_equal(n, 19 * 49 + 35);
        assert_null(strstr(buf, "after the bound"));
}

static void test_truncation_default_bound(void **state)
{
        (void)state;
        struct snapshot *s;
        char path[256];
        static char chunk[65536];
        memset(chunk, 'z', sizeof(chunk));
        chunk[sizeof(chunk) - 1] = '\n';
        assert_int_equal(snapshot_open(&s, dir, SNAPSHOT_CRASH, noon), 0);
        for (int i = 0; i < 80; i++) /* 5 MB */
                snapshot_write(s, chunk, sizeof(chunk));
        assert_int_equal(snapshot_commit(s, path, sizeof(path)), 0);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_true(st.st_size <= SNAPSHOT_MAX_BYTES);
        assert_int_equal(st.st_size, 63 * 65536 + 29);
        char tail[64];
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        fseek(f, -29, SEEK_END);
        assert_int_equal(fread(tail, 1, 29, f), 29);
        fclose(f);
        tail[29] = '\0';
        assert_string_equal(tail, "(snapshot truncated at 4 MB)\n");
}

static void test_put_sb(void **state)
{
        (void)state;
        struct snapshot *s;
        char path[256], buf[256], small[8];
        struct strbuf sb;
        sb_init_fixed(&sb, small, sizeof(small));
        sb_puts(&sb, "abc");
        sb_puts(&sb, "defghij"); /* does not fit: dropped, overflow set */
        assert_true(sb.overflow);
        assert_int_equal(snapshot_open(&s, dir, SNAPSHOT_INCIDENT, noon), 0);
        snapshot_put_sb(s, &sb);
        assert_int_equal(snapshot_commit(s, path, sizeof(path)), 0);
        assert_true(read_file_at(NULL, path, buf, sizeof(buf)) > 0);
        assert_string_equal(buf, "abc\n(section truncated)\n");
}

static void test_limiter(void **state)
{
        (void)state;
        struct snapshot_limiter l;
        snapshot_limiter_init(&l, SNAPSHOT_CRASH);
        assert_int_equal(l.cooldown_ns, 60 * SEC);
        /* A burst of 30 Xid events: one snapshot, the first three suppressions reported. */
        assert_int_equal(snapshot_limiter_check(&l, 0), SNAPSHOT_TAKE);
        for (int i = 1; i <= 30; i++)
                assert_int_equal(snapshot_limiter_check(&l, i * SEC / 10),
                                 i <= 3 ? SNAPSHOT_SUPPRESS_REPORT : SNAPSHOT_SUPPRESS_QUIET);
        assert_int_equal(l.suppressed, 30);
        assert_int_equal(snapshot_limiter_check(&l, 60 * SEC - 1), SNAPSHOT_SUPPRESS_QUIET);
        assert_int_equal(snapshot_limiter_check(&l, 60 * SEC), SNAPSHOT_TAKE);
        assert_int_equal(l.suppressed, 0);
        assert_int_equal(l.suppressed_total, 31);
        assert_int_equal(snapshot_limiter_check(&l, 61 * SEC), SNAPSHOT_SUPPRESS_REPORT);
        snapshot_limiter_init(&l, SNAPSHOT_SPIKE);
        assert_int_equal(snapshot_limiter_check(&l, 500 * SEC), SNAPSHOT_TAKE);
        assert_int_equal(snapshot_limiter_check(&l, 509 * SEC), SNAPSHOT_SUPPRESS_REPORT);
        assert_int_equal(snapshot_limiter_check(&l, 510 * SEC), SNAPSHOT_TAKE);
        snapshot_limiter_init(&l, SNAPSHOT_INCIDENT);
        assert_int_equal(l.cooldown_ns, 60 * SEC);
}

static void test_followups(void **state)
{
        (void)state;
        struct snapshot_followups f;
        struct snapshot_followup_due d[8];
        memset(&f, 0, sizeof(f));
        assert_int_equal(snapshot_followups_next(&f), 0);
        assert_int_equal(snapshot_followups_due(&f, 1000 * SEC, d, 8), 0);
        snapshot_followups_arm(&f, 1, 100 * SEC,
                               "/var/log/vigil/crashes/crash-20261202-120000.log");
        assert_int_equal(snapshot_followups_next(&f), 110 * SEC);
        assert_int_equal(snapshot_followups_due(&f, 109 * SEC, d, 8), 0);
        assert_int_equal(snapshot_followups_due(&f, 110 * SEC, d, 8), 1);
        assert_int_equal(d[0].tag, 1);
        assert_int_equal(d[0].delay_s, 10);
        assert_string_equal(d[0].name, "crash-20261202-120000-followup-10s");
        assert_int_equal(snapshot_followups_due(&f, 111 * SEC, d, 8), 0); /* once */
        assert_int_equal(snapshot_followups_next(&f), 160 * SEC);
        /* A second crash (another GPU) while the first is pending. */
        snapshot_followups_arm(&f, 2, 150 * SEC, "crash-20261202-120050");
        assert_int_equal(snapshot_followups_due(&f, 160 * SEC, d, 8), 2);
        assert_string_equal(d[0].name, "crash-20261202-120000-followup-60s");
        assert_string_equal(d[1].name, "crash-20261202-120050-followup-10s");
        assert_int_equal(d[1].tag, 2);
        /* Late (the loop stalled): every step past due comes out, oldest crash first. */
        assert_int_equal(snapshot_followups_due(&f, 1000 * SEC, d, 2), 2);
        assert_string_equal(d[0].name, "crash-20261202-120000-followup-300s");
        assert_string_equal(d[1].name, "crash-20261202-120050-followup-60s");
        assert_int_equal(snapshot_followups_next(&f), 450 * SEC);
        assert_int_equal(snapshot_followups_due(&f, 1000 * SEC, d, 8), 1);
        assert_string_equal(d[0].name, "crash-20261202-120050-followup-300s");
        assert_int_equal(snapshot_followups_next(&f), 0);
        /* All slots busy: the oldest schedule gives way. */
        for (int i = 0; i < SNAPSHOT_FOLLOWUP_SLOTS + 1; i++) {
                char name[32];
                snprintf(name, sizeof(name), "crash-%d", i);
                snapshot_followups_arm(&f, i, (2000 + i) * SEC, name);
        }
        assert_int_equal(snapshot_followups_due(&f, 2010 * SEC, d, 8), 0); /* crash-0 is gone */
        assert_int_equal(snapshot_followups_due(&f, 2011 * SEC, d, 8), 1);
        assert_string_equal(d[0].name, "crash-1-followup-10s");
        assert_int_equal(snapshot_followups_due(&f, 2014 * SEC, d, 8), 3);
        assert_string_equal(d[2].name, "crash-4-followup-10s");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_header),
            cmocka_unit_test_setup(test_write_and_commit, clean),
            cmocka_unit_test_setup(test_same_second_names, clean),
            cmocka_unit_test_setup(test_abort_and_named, clean),
            cmocka_unit_test_setup(test_truncation, clean),
            cmocka_unit_test_setup(test_truncation_default_bound, clean),
            cmocka_unit_test_setup(test_put_sb, clean),
            cmocka_unit_test(test_limiter),
            cmocka_unit_test(test_followups),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
