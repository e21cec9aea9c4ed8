/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the Alertmanager pieces that need no network: a finding as an alert and
 * the JSON of API v2 (push/am_alert.c), its escaping, when a finding fires
 * (push/am_eval.c), the on-disk store of alerts not
 * delivered (push/am_store.c: round trip, damage, a full disk, its bound), the endpoint
 * of a base URL and the config's keys (push/rw_config.c). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/findings.h"
#include "push/alertmanager.h"
#include "push/am_alert.h"
#include "push/am_eval.h"
#include "push/am_store.h"
#include "push/rw_config.h"

static char *json_of(const char *s)
{
        static char buf[1024];
        struct strbuf sb;
        sb_init_fixed(&sb, buf, sizeof(buf));
        am_json_string(&sb, s);
        return buf;
}

static void test_json_escaping(void **state)
{
        (void)state;
        assert_string_equal(json_of("plain"), "\"plain\"");
        assert_string_equal(json_of("a \"quoted\" \\ back"), "\"a \\\"quoted\\\" \\\\ back\"");
        assert_string_equal(json_of("line\nnext\ttab\rcr"), "\"line\\nnext\\ttab\\rcr\"");
        assert_string_equal(json_of("\x01\x1f\x7f"), "\"\\u0001\\u001f\\u007f\"");
        /* Valid UTF-8 passes as it is: an arrow, a 4-byte emoji. */
        assert_string_equal(json_of("300W \xE2\x86\x92 250W \xF0\x9F\x94\xA5"),
                            "\"300W \xE2\x86\x92 250W \xF0\x9F\x94\xA5\"");
        /* Bytes that are no UTF-8: a lone continuation, Latin-1, a cut sequence, an
         * overlong form, a surrogate. */
        assert_string_equal(json_of("a\x80z"), "\"a\\ufffdz\"");
        assert_string_equal(json_of("caf\xE9"), "\"caf\\ufffd\"");
        assert_string_equal(json_of("\xE2\x86"), "\"\\ufffd\\ufffd\"");
        assert_string_equal(json_of("\xC0\xAF"), "\"\\ufffd\\ufffd\"");
        assert_string_equal(json_of("\xED\xA0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");
}

static void test_rfc3339(void **state)
{
        char buf[64];
        struct strbuf sb;
        (void)state;
        sb_init_fixed(&sb, buf, sizeof(buf));
        am_rfc3339(&sb, 1796570463950LL);
        assert_string_equal(buf, "2026-12-06T15:21:03.950Z");
        sb_init_fixed(&sb, buf, sizeof(buf));
        am_rfc3339(&sb, 7);
        assert_string_equal(buf, "1970-01-01T00:00:00.007Z");
}

static struct finding xid_finding(void)
{
        struct finding x;
        memset(&x, 0, sizeof(x));
        x.kind = FINDING_XID;
        snprintf(x.source, sizeof(x.source), "gpu1");
        snprintf(x.key, sizeof(x.key), "79");
        x.alarm = true;
        x.severity = FINDING_CRITICAL;
        x.count = 2;
        x.first_t = 1796570463.95;
        x.last_t = 1796570470.0;
        x.open_t = NAN;
        x.value = NAN;
        snprintf(x.text, sizeof(x.text), "GPU has fallen off the bus. Action: \"reboot\"");
        return x;
}

static void test_alert_from_finding(void **state)
{
        (void)state;
        struct rw_label base[] = {
            {"site", "lobby"}, {"instance", "player-7"}, {"job", "vigil"}, {"severity", "page"}};
        struct finding x = xid_finding();
        struct am_alert a, b;
        char name[64];
        am_alert_name(FINDING_GPU_LOST, name, sizeof(name));
        assert_string_equal(name, "VigilGpuLost");
        am_alert_name(FINDING_XID, name, sizeof(name));
        assert_string_equal(name, "VigilXid");
        assert_true(am_alert_from_finding(&x, base, 4, "player-7", 5, &a));
        /* Sorted by name; the finding's severity wins over a base label's. */
        const char *want[][2] = {{"alertname", "VigilXid"}, {"gpu", "1"},  {"instance", "player-7"},
                                 {"job", "vigil"},          {"key", "79"}, {"severity", "critical"},
                                 {"site", "lobby"}};
        assert_int_equal(a.nlabels, 7);
        for (size_t i = 0; i < 7; i++) {
                assert_string_equal(a.labels[i].name, want[i][0]);
                assert_string_equal(a.labels[i].value, want[i][1]);
        }
        assert_int_equal(a.starts_ms, 1796570463950LL);
        assert_int_equal(a.ends_ms, 0);
        assert_non_null(strstr(a.summary, "Xid 79 (2x"));
        assert_string_equal(
            a.description,
            "Xid on player-7 (gpu1): GPU has fallen off the bus. Action: \"reboot\"");
        /* The same labels, whatever the text and times: the same alert. */
        x.count = 3;
        x.first_t = NAN;
        snprintf(x.text, sizeof(x.text), "other");
        assert_true(am_alert_from_finding(&x, base, 4, "player-7", 42, &b));
        assert_true(a.id == b.id);
        assert_int_equal(b.starts_ms, 42);
        /* Another GPU, another alert; a host finding has component, no gpu. */
        snprintf(x.source, sizeof(x.source), "gpu2");
        assert_true(am_alert_from_finding(&x, base, 4, "player-7", 42, &b));
        assert_true(a.id != b.id);
        x.kind = FINDING_STORAGE;
        x.severity = FINDING_WARNING;
        snprintf(x.source, sizeof(x.source), "host");
        snprintf(x.key, sizeof(x.key), "read-only");
        assert_true(am_alert_from_finding(&x, base, 4, "player-7", 42, &b));
        assert_string_equal(b.labels[0].value, "VigilStorage");
        assert_string_equal(b.labels[1].name, "component");
        assert_string_equal(b.labels[1].value, "host");
        /* Not alerts: fyi, or no alarm. */
        x.severity = FINDING_FYI;
        assert_false(am_alert_from_finding(&x, base, 4, "player-7", 42, &b));
        x.severity = FINDING_WARNING;
        x.alarm = false;
        assert_false(am_alert_from_finding(&x, base, 4, "player-7", 42, &b));
}

/* The Xid finding's runbook annotation (core/findings.c findings_kinds[]). */
#define XID_RUNBOOK                                                                                \
        "\"runbook\":\"Do what the description's action says (NVIDIA's Xid catalog); vigil xid "   \
        "CODE explains the code.\""

static void test_json_body(void **state)
{
        (void)state;
        struct am_alert a[2];
        char buf[4096];
        struct strbuf sb;
        memset(a, 0, sizeof(a));
        a[0].nlabels = 2;
        snprintf(a[0].labels[0].name, 64, "alertname");
        snprintf(a[0].labels[0].value, 256, "VigilXid");
        snprintf(a[0].labels[1].name, 64, "site");
        snprintf(a[0].labels[1].value, 256, "lobby \"east\"\n");
        snprintf(a[0].summary, sizeof(a[0].summary), "Xid 79: \\x");
        a[0].starts_ms = 1796570463950LL;
        a[1] = a[0];
        a[1].description[0] = 'd';
        a[1].ends_ms = 1796570464000LL;
        sb_init_fixed(&sb, buf, sizeof(buf));
        am_json_encode(a, 2, 1796570470000LL, 240000, &sb);
        assert_false(sb.overflow);
        assert_string_equal(
            buf,
            "[{\"labels\":{\"alertname\":\"VigilXid\",\"site\":\"lobby \\\"east\\\"\\n\"},"
            "\"annotations\":{\"summary\":\"Xid 79: \\\\x\"," XID_RUNBOOK "},"
            "\"startsAt\":\"2026-12-06T15:21:03.950Z\",\"endsAt\":\"2026-12-06T15:25:10.000Z\"},"
            "{\"labels\":{\"alertname\":\"VigilXid\",\"site\":\"lobby \\\"east\\\"\\n\"},"
            "\"annotations\":{\"summary\":\"Xid 79: \\\\x\",\"description\":\"d\"," XID_RUNBOOK "},"
            "\"startsAt\":\"2026-12-06T15:21:03.950Z\",\"endsAt\":\"2026-12-06T15:21:04.000Z\"}]");
        sb_init_fixed(&sb, buf, sizeof(buf));
        am_json_encode(a, 0, 0, 0, &sb);
        assert_string_equal(buf, "[]");
}

static void test_endpoint(void **state)
{
        char out[256];
        (void)state;
        am_endpoint("http://am:9093", out, sizeof(out));
        assert_string_equal(out, "http://am:9093/api/v2/alerts");
        am_endpoint("http://am:9093/", out, sizeof(out));
        assert_string_equal(out, "http://am:9093/api/v2/alerts");
        am_endpoint("https://h/am/", out, sizeof(out));
        assert_string_equal(out, "https://h/am/api/v2/alerts");
        am_endpoint("http://am:9093/api/v2/alerts", out, sizeof(out));
        assert_string_equal(out, "http://am:9093/api/v2/alerts");
}

static void test_config(void **state)
{
        (void)state;
        struct rw_config c;
        char err[400];
        const char *text = "url: https://am.example:9093\n"
                           "resend_delay: 30s\n"
                           "evaluation_interval: 5s\n"
                           "keep_firing_for: 1h\n"
                           "timeout: 3s\n"
                           "basic_auth:\n  username: player\n  password_file: pw\n"
                           "tls_config:\n  ca_file: /etc/ca.pem\n  insecure_skip_verify: true\n"
                           "external_labels:\n  site: lobby\n";
        rwconfig_defaults(&c);
        assert_int_equal(c.resend_delay_ns, 60000000000LL);
        assert_int_equal(c.eval_interval_ns, 15000000000LL);
        assert_int_equal(rwconfig_parse_for(RWCONF_ALERTMANAGER, text, strlen(text), "/etc/vigil",
                                            &c, err, sizeof(err)),
                         0);
        assert_string_equal(c.url, "https://am.example:9093");
        assert_int_equal(c.resend_delay_ns, 30000000000LL);
        assert_int_equal(c.eval_interval_ns, 5000000000LL);
        assert_int_equal(c.keep_firing_ns, 3600000000000LL);
        assert_int_equal(c.timeout_ns, 3000000000LL);
        assert_string_equal(c.password_file, "/etc/vigil/pw");
        assert_true(c.insecure_skip_verify);
        assert_int_equal(c.nlabels, 1);
        /* Each file takes its own keys. */
        rwconfig_defaults(&c);
        assert_int_equal(rwconfig_parse_for(RWCONF_ALERTMANAGER, "queue_max_bytes: 1MiB\n", 22,
                                            NULL, &c, err, sizeof(err)),
                         -EINVAL);
        assert_non_null(strstr(err, "line 1: unsupported key 'queue_max_bytes'"));
        rwconfig_defaults(&c);
        assert_int_equal(rwconfig_parse("url: http://x\n", 14, NULL, &c, err, sizeof(err)),
                         -EINVAL);
        assert_non_null(strstr(err, "line 1: unsupported key 'url'"));
        rwconfig_defaults(&c);
        assert_int_equal(rwconfig_parse_for(RWCONF_ALERTMANAGER, "url: ftp://x\n", 13, NULL, &c,
                                            err, sizeof(err)),
                         -EINVAL);
        assert_non_null(strstr(err, "is not an http:// or https:// URL"));
        rwconfig_defaults(&c);
        const char *skip = "tls_config:\n  insecure_skip_verify: yes\n";
        assert_int_equal(
            rwconfig_parse_for(RWCONF_ALERTMANAGER, skip, strlen(skip), NULL, &c, err, sizeof(err)),
            -EINVAL);
        assert_string_equal(err, "line 2: insecure_skip_verify: 'yes' is not true or false");
}

/* ---- when a finding fires ---- */

static struct am_eval ev;

static void test_eval(void **state)
{
        (void)state;
        memset(&ev, 0, sizeof(ev));
        ev.keep_ms = 1000;
        /* An open state: fires while open, whatever the time; resolved when closed. */
        struct finding lost = xid_finding();
        lost.kind = FINDING_GPU_LOST;
        lost.key[0] = '\0';
        lost.open_t = 100.0;
        assert_true(am_eval_fires(&ev, &lost, 10));
        assert_true(am_eval_fires(&ev, &lost, 50000));
        lost.open_t = NAN;
        lost.last_t += 5; /* the recovery updates its time: still resolved at once */
        assert_false(am_eval_fires(&ev, &lost, 50001));
        assert_false(am_eval_fires(&ev, &lost, 50002));
        lost.open_t = 200.0; /* lost again */
        lost.count++;
        assert_true(am_eval_fires(&ev, &lost, 60000));

        /* A moment (an Xid): fires for keep_ms from each time it is seen anew. */
        struct finding xid = xid_finding();
        assert_true(am_eval_fires(&ev, &xid, 10));
        assert_true(am_eval_fires(&ev, &xid, 1009));
        assert_false(am_eval_fires(&ev, &xid, 1010));
        xid.count++;
        assert_true(am_eval_fires(&ev, &xid, 2000));
        assert_false(am_eval_fires(&ev, &xid, 3000));
        xid.last_t += 1; /* a later time, same count */
        assert_true(am_eval_fires(&ev, &xid, 4000));
        /* Another key is another finding. */
        struct finding other = xid_finding();
        snprintf(other.key, sizeof(other.key), "48");
        assert_true(am_eval_fires(&ev, &other, 4500));
        assert_false(am_eval_fires(&ev, &xid, 5000));

        /* A share of time: rising is seen anew, falling is not. */
        struct finding thr = xid_finding();
        thr.kind = FINDING_THROTTLE;
        snprintf(thr.key, sizeof(thr.key), "HwSlowdown");
        thr.count = 0;
        thr.last_t = NAN;
        thr.value = 0.2;
        assert_true(am_eval_fires(&ev, &thr, 10));
        thr.value = 0.1;
        assert_false(am_eval_fires(&ev, &thr, 1500));
        thr.value = 0.3;
        assert_true(am_eval_fires(&ev, &thr, 1600));

        /* Past its bound nothing new fires, and nothing crashes. */
        struct finding many = xid_finding();
        size_t fired = 0;
        for (int i = 0; i < AM_EVAL_MAX + 10; i++) {
                snprintf(many.key, sizeof(many.key), "k%d", i);
                fired += am_eval_fires(&ev, &many, 10);
        }
        assert_int_equal(ev.n, AM_EVAL_MAX);
        assert_true(fired < (size_t)AM_EVAL_MAX);
}

/* ---- the store ---- */

static char dir[256];

static int st_setup(void **state)
{
        (void)state;
        snprintf(dir, sizeof(dir), "%s/vigil-am-XXXXXX",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        return mkdtemp(dir) ? 0 : -1;
}

static int st_teardown(void **state)
{
        char cmd[400];
        (void)state;
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        return system(cmd) == 0 ? 0 : -1;
}

static void sample_alert(struct am_alert *a, const char *key, int64_t starts, int64_t ends)
{
        memset(a, 0, sizeof(*a));
        a->nlabels = 3;
        snprintf(a->labels[0].name, 64, "alertname");
        snprintf(a->labels[0].value, 256, "VigilXid");
        snprintf(a->labels[1].name, 64, "key");
        snprintf(a->labels[1].value, 256, "%s", key);
        snprintf(a->labels[2].name, 64, "site");
        snprintf(a->labels[2].value, 256, "tab\there \\ and\nnewline");
        snprintf(a->summary, sizeof(a->summary), "Xid %s: \"quoted\"\ttab", key);
        snprintf(a->description, sizeof(a->description), "caf\xC3\xA9 \\n is not a newline");
        a->starts_ms = starts;
        a->ends_ms = ends;
        a->id = am_alert_id(a);
}

static struct am_store st, st2;

static void path_of(char *out, size_t cap, const char *name)
{
        snprintf(out, cap, "%s/%s", dir, name);
}

static void write_file(const char *name, const char *text, size_t len)
{
        char p[400];
        path_of(p, sizeof(p), name);
        FILE *f = fopen(p, "w");
        assert_non_null(f);
        assert_int_equal(fwrite(text, 1, len, f), len);
        fclose(f);
}

static void test_store_roundtrip(void **state)
{
        (void)state;
        struct am_alert a;
        assert_int_equal(am_store_open(&st, dir), 0); /* no file yet */
        assert_int_equal(st.n, 0);
        sample_alert(&a, "79", 1000, 0);
        struct am_entry *e = am_store_add(&st, &a);
        assert_non_null(e);
        e->delivered = true;
        sample_alert(&a, "48", 2000, 3000);
        assert_non_null(am_store_add(&st, &a));
        assert_int_equal(am_store_pending(&st), 1);
        assert_int_equal(am_store_save(&st), 0);

        assert_int_equal(am_store_open(&st2, dir), 0);
        assert_int_equal(st2.n, 2);
        for (size_t i = 0; i < 2; i++) {
                assert_memory_equal(&st2.e[i].a, &st.e[i].a, sizeof(st.e[i].a));
                assert_int_equal(st2.e[i].delivered, st.e[i].delivered);
        }
        assert_true(st2.e[0].carried);  /* firing from before */
        assert_false(st2.e[1].carried); /* resolved */
        assert_non_null(am_store_find(&st2, st.e[1].a.id));
        /* No temporary file stays behind. */
        char p[400];
        path_of(p, sizeof(p), "alerts.tmp");
        assert_int_equal(access(p, F_OK), -1);
}

static void expect_damaged(const char *text, size_t len)
{
        char p[400];
        write_file("alerts", text, len);
        assert_int_equal(am_store_open(&st, dir), -EBADMSG);
        assert_int_equal(st.n, 0);
        path_of(p, sizeof(p), "alerts");
        assert_int_equal(access(p, F_OK), -1); /* moved aside ... */
        path_of(p, sizeof(p), "alerts.damaged");
        assert_int_equal(access(p, F_OK), 0); /* ... here, for a person to look at */
        unlink(p);
}

/* A literal's bytes, embedded NULs included, as a damaged store. */
#define EXPECT_DAMAGED(lit) expect_damaged(lit, sizeof(lit) - 1)

static void test_store_damage(void **state)
{
        (void)state;
        struct am_alert a;
        struct strbuf sb;
        static char good[8192];
        assert_int_equal(am_store_open(&st, dir), 0);
        sample_alert(&a, "79", 1000, 0);
        am_store_add(&st, &a);
        sample_alert(&a, "48", 2000, 3000);
        am_store_add(&st, &a);
        sb_init_fixed(&sb, good, sizeof(good));
        am_store_format(&st, &sb);
        assert_false(sb.overflow);
        size_t len = sb.len;
        /* Read back whole, it is fine. */
        write_file("alerts", good, len);
        assert_int_equal(am_store_open(&st, dir), 0);
        assert_int_equal(st.n, 2);
        /* Cut anywhere short of its end: damaged, never half read. */
        for (size_t cut = 0; cut < len; cut += 7)
                expect_damaged(good, cut);
        expect_damaged(good, len - 1);
        /* A flipped count, garbage, a bad escape, a NUL byte, another version. */
        char bad[8192];
        memcpy(bad, good, len);
        bad[len - 2] = '3';
        expect_damaged(bad, len);
        EXPECT_DAMAGED("garbage\n");
        EXPECT_DAMAGED("vigil-alerts\t1\nA\t1\t0\t0\t1\tk\tv\\q\ts\td\nend\t1\n");
        EXPECT_DAMAGED("vigil-alerts\t1\nA\t1\t0\t0\t1\tk\tv\0\ts\td\nend\t1\n");
        EXPECT_DAMAGED("vigil-alerts\t2\nend\t0\n");
        EXPECT_DAMAGED("vigil-alerts\t1\nA\t1\t0\t5\t1\tk\tv\ts\td\nend\t1\n");
        /* An empty table is a good file. */
        write_file("alerts", "vigil-alerts\t1\nend\t0\n", sizeof("vigil-alerts\t1\nend\t0\n") - 1);
        assert_int_equal(am_store_open(&st, dir), 0);
        assert_int_equal(st.n, 0);
}

static ssize_t full_disk(int fd, const void *buf, size_t len)
{
        (void)fd;
        (void)buf;
        (void)len;
        errno = ENOSPC;
        return -1;
}

static ssize_t short_then_full(int fd, const void *buf, size_t len)
{
        static int calls;
        if (calls++ == 0)
                return write(fd, buf, len > 10 ? 10 : len);
        errno = ENOSPC;
        return -1;
}

static void test_store_full_disk(void **state)
{
        (void)state;
        struct am_alert a;
        char p[400];
        assert_int_equal(am_store_open(&st, dir), 0);
        sample_alert(&a, "79", 1000, 0);
        am_store_add(&st, &a);
        assert_int_equal(am_store_save(&st), 0);
        /* The disk fills: the save fails, the file keeps the last good table. */
        sample_alert(&a, "48", 2000, 0);
        am_store_add(&st, &a);
        st.write_fn = full_disk;
        assert_int_equal(am_store_save(&st), -ENOSPC);
        st.write_fn = short_then_full;
        assert_int_equal(am_store_save(&st), -ENOSPC);
        path_of(p, sizeof(p), "alerts.tmp");
        assert_int_equal(access(p, F_OK), -1);
        assert_int_equal(am_store_open(&st2, dir), 0);
        assert_int_equal(st2.n, 1);
        assert_string_equal(st2.e[0].a.labels[1].value, "79");
        /* Space again: both. */
        st.write_fn = write;
        assert_int_equal(am_store_save(&st), 0);
        assert_int_equal(am_store_open(&st2, dir), 0);
        assert_int_equal(st2.n, 2);
}

static void test_store_bound(void **state)
{
        (void)state;
        struct am_alert a;
        char key[16];
        assert_int_equal(am_store_open(&st, dir), 0);
        for (int i = 0; i < AM_MAX_ALERTS; i++) {
                snprintf(key, sizeof(key), "%d", i);
                sample_alert(&a, key, 1000 + i, i < 4 ? 5000 + i : 0);
                assert_non_null(am_store_add(&st, &a));
        }
        sample_alert(&a, "new", 9000, 0);
        /* All firing or undelivered: nothing is given up. */
        assert_null(am_store_add(&st, &a));
        /* A delivered resolution is: the oldest one. */
        st.e[2].delivered = true;
        st.e[1].delivered = true;
        assert_non_null(am_store_add(&st, &a));
        assert_int_equal(st.n, AM_MAX_ALERTS);
        assert_string_equal(st.e[0].a.labels[1].value, "0");
        assert_string_equal(st.e[1].a.labels[1].value, "2");
        assert_string_equal(st.e[AM_MAX_ALERTS - 1].a.labels[1].value, "new");
        /* The full table fits the file's bound. */
        assert_int_equal(am_store_save(&st), 0);
        assert_int_equal(am_store_open(&st2, dir), 0);
        assert_int_equal(st2.n, AM_MAX_ALERTS);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_json_escaping),
            cmocka_unit_test(test_rfc3339),
            cmocka_unit_test(test_alert_from_finding),
            cmocka_unit_test(test_json_body),
            cmocka_unit_test(test_endpoint),
            cmocka_unit_test(test_config),
            cmocka_unit_test(test_eval),
            cmocka_unit_test_setup_teardown(test_store_roundtrip, st_setup, st_teardown),
            cmocka_unit_test_setup_teardown(test_store_damage, st_setup, st_teardown),
            cmocka_unit_test_setup_teardown(test_store_full_disk, st_setup, st_teardown),
            cmocka_unit_test_setup_teardown(test_store_bound, st_setup, st_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
