/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the remote-write pieces that need no network: the WriteRequest encoder
 * (push/rw_proto.c), the on-disk queue (push/rw_queue.c), the config reader
 * (push/rw_config.c) and the retry backoff (push/remote_write.c). */
#include <errno.h>
#include <fcntl.h>
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

#include "push/remote_write.h"
#include "push/rw_config.h"
#include "push/rw_identity.h"
#include "push/rw_proto.h"
#include "push/rw_queue.h"
#include "push/rw_record.h"
#include "push/rw_stale.h"

/* ---- a minimal reader of the encoder's output, to check structure ---- */

static uint64_t rd_varint(const uint8_t *b, size_t len, size_t *i)
{
        uint64_t v = 0;
        for (unsigned shift = 0; *i < len && shift < 64; shift += 7) {
                uint8_t c = b[(*i)++];
                v |= (uint64_t)(c & 0x7f) << shift;
                if (!(c & 0x80))
                        return v;
        }
        fail_msg("bad varint");
        return 0;
}

/* The labels of series number `which` as "k=v,k=v" and its sample count. */
static void series_at(const uint8_t *b, size_t len, unsigned which, char *labels, size_t cap,
                      unsigned *ret_samples)
{
        size_t i = 0;
        for (unsigned n = 0; i < len; n++) {
                assert_int_equal(b[i++], 0x0a);
                size_t sl = rd_varint(b, len, &i), end = i + sl;
                assert_true(end <= len);
                if (n != which) {
                        i = end;
                        continue;
                }
                labels[0] = '\0';
                *ret_samples = 0;
                while (i < end) {
                        uint8_t tag = b[i++];
                        size_t ml = rd_varint(b, len, &i);
                        if (tag == 0x12) {
                                (*ret_samples)++;
                                i += ml;
                                continue;
                        }
                        assert_int_equal(tag, 0x0a);
                        assert_int_equal(b[i++], 0x0a);
                        size_t nl = rd_varint(b, len, &i);
                        size_t o = strlen(labels);
                        snprintf(labels + o, cap - o, "%s%.*s=", o ? "," : "", (int)nl,
                                 (const char *)b + i);
                        i += nl;
                        assert_int_equal(b[i++], 0x12);
                        size_t vl = rd_varint(b, len, &i);
                        o = strlen(labels);
                        snprintf(labels + o, cap - o, "%.*s", (int)vl, (const char *)b + i);
                        i += vl;
                }
                return;
        }
        fail_msg("no series %u", which);
}

static void test_encode_exact(void **state)
{
        (void)state;
        struct rw_encoder e;
        uint8_t *buf;
        size_t len;
        /* WriteRequest{timeseries: {labels: {__name__: up}, samples: {1.0, 1000}}}. */
        static const uint8_t want[] = {
            0x0a, 0x1e,                                            /* timeseries, 30 bytes */
            0x0a, 0x0e,                                            /* label, 14 bytes */
            0x0a, 0x08, '_',  '_', 'n', 'a', 'm', 'e',  '_',  '_', /* name */
            0x12, 0x02, 'u',  'p',                                 /* value */
            0x12, 0x0c,                                            /* sample, 12 bytes */
            0x09, 0,    0,    0,   0,   0,   0,   0xf0, 0x3f,      /* 1.0 */
            0x10, 0xe8, 0x07,                                      /* 1000 */
        };
        assert_int_equal(rw_enc_init(&e, NULL, 0), 0);
        const char *text = "# HELP up x\n# TYPE up gauge\nup 1\n";
        assert_int_equal(rw_enc_add_text(&e, text, strlen(text), 1000), 0);
        assert_int_equal(rw_enc_finish(&e, &buf, &len), 0);
        assert_int_equal(len, sizeof(want));
        assert_memory_equal(buf, want, sizeof(want));
        free(buf);
        rw_enc_free(&e);
}

static void test_encode_labels(void **state)
{
        (void)state;
        struct rw_encoder e;
        struct rw_label extra[] = {{"site", "lobby"}, {"job", "vigil"}, {"gpu", "ignored"}};
        const char *f1 = "vigil_gpu_power_watts{gpu=\"0\",uuid=\"GPU-1\"} 231.5\n"
                         "vigil_x{name=\"a \\\"b\\\" {c} d\\\\\"} 2\n"
                         "vigil_temp{sensor=\"s\"} 1\n"
                         "vigil_temp{sensor=\"s\"} 9\n"; /* a duplicate: the first stays */
        const char *f2 = "vigil_gpu_power_watts{gpu=\"0\",uuid=\"GPU-1\"} +Inf\nvigil_y NaN\n";
        char labels[512];
        unsigned n;
        uint8_t *buf;
        size_t len;
        assert_int_equal(rw_enc_init(&e, extra, 3), 0);
        assert_int_equal(rw_enc_add_text(&e, f1, strlen(f1), 1000), 0);
        assert_int_equal(rw_enc_add_text(&e, f2, strlen(f2), 2000), 0);
        assert_int_equal(e.nseries, 4);
        assert_int_equal(e.nsamples, 5);
        assert_int_equal(rw_enc_finish(&e, &buf, &len), 0);
        /* Sorted by name; the line's own gpu label wins over the extra one. */
        series_at(buf, len, 0, labels, sizeof(labels), &n);
        assert_string_equal(labels, "__name__=vigil_gpu_power_watts,gpu=0,job=vigil,site=lobby,"
                                    "uuid=GPU-1");
        assert_int_equal(n, 2);
        series_at(buf, len, 1, labels, sizeof(labels), &n);
        assert_string_equal(labels, "__name__=vigil_x,gpu=ignored,job=vigil,name=a \"b\" {c} d\\,"
                                    "site=lobby");
        assert_int_equal(n, 1);
        series_at(buf, len, 2, labels, sizeof(labels), &n);
        assert_int_equal(n, 1);
        free(buf);
        rw_enc_free(&e);
}

static void test_encode_bad_and_many(void **state)
{
        (void)state;
        struct rw_encoder e;
        char line[128];
        assert_int_equal(rw_enc_init(&e, NULL, 0), 0);
        assert_int_equal(rw_enc_add_text(&e, "novalue\n", 8, 1), -EINVAL);
        assert_int_equal(rw_enc_add_text(&e, "x{a=\"1\" 2\n", 10, 1), -EINVAL);
        assert_int_equal(rw_enc_add_text(&e, "x 12abc\n", 8, 1), -EINVAL);
        /* The table grows well past its first size. */
        for (unsigned i = 0; i < 5000; i++) {
                int n = snprintf(line, sizeof(line), "s{i=\"%u\"} %u\n", i, i);
                assert_int_equal(rw_enc_add_text(&e, line, (size_t)n, 5), 0);
        }
        assert_int_equal(e.nseries, 5000);
        uint8_t *buf;
        size_t len;
        assert_int_equal(rw_enc_finish(&e, &buf, &len), 0);
        assert_true(len > 5000 * 20);
        free(buf);
        rw_enc_free(&e);
}

/* ---- staleness markers ---- */

static void test_encode_stale(void **state)
{
        (void)state;
        struct rw_encoder e;
        uint8_t *buf;
        size_t len;
        /* The sample's double is the 8 bytes after the 0x09 tag, little-endian:
         * 0x7ff0000000000002, Prometheus's StaleNaN, not the NaN the text "NaN" gives. */
        static const uint8_t stale[] = {0x09, 0x02, 0, 0, 0, 0, 0, 0xf0, 0x7f};
        assert_int_equal(rw_enc_init(&e, NULL, 0), 0);
        const char *text = "up StaleNaN\n";
        assert_int_equal(rw_enc_add_text(&e, text, strlen(text), 1000), 0);
        assert_int_equal(rw_enc_finish(&e, &buf, &len), 0);
        assert_true(len > sizeof(stale));
        assert_non_null(memmem(buf, len, stale, sizeof(stale)));
        free(buf);
        rw_enc_free(&e);
}

/* The sample record of TEXT's sample lines ("key value", # lines skipped) into rec
 * (cap bytes). Returns its length. */
static size_t to_rec(const char *text, char *rec, size_t cap)
{
        size_t len = 0;
        for (const char *p = text; *p;) {
                const char *nl = strchr(p, '\n');
                size_t n = nl ? (size_t)(nl - p) : strlen(p);
                if (n && p[0] != '#') {
                        size_t k = rw_series_key_len(p, n);
                        assert_true(k > 0);
                        assert_int_equal(rw_rec_put(rec, cap, &len, p, k, strtod(p + k, NULL)), 0);
                }
                p += n + (nl != NULL);
        }
        return len;
}

/* The samples of rec from off on as "KEY StaleNaN\n" lines into out (each must be a
 * marker). */
static void markers_text(const char *rec, size_t len, size_t off, char *out, size_t cap)
{
        const char *key;
        size_t kl, pos = off, o = 0;
        double v;
        uint64_t bits;
        out[0] = '\0';
        while (rw_rec_next(rec, len, &pos, &key, &kl, &v) == 1) {
                memcpy(&bits, &v, 8);
                assert_true(bits == RW_STALE_NAN_BITS);
                o += (size_t)snprintf(out + o, cap - o, "%.*s StaleNaN\n", (int)kl, key);
        }
}

/* mark FRAME (sample lines) on st, with room bytes left in its record for markers; the
 * markers are returned in out as text. */
static int mark(struct rw_stale *st, const char *frame, char *out, size_t room)
{
        char rec[4096];
        size_t n = to_rec(frame, rec, sizeof(rec)), len = n;
        int r = rw_stale_mark(st, rec, &len, n + room);
        markers_text(rec, len, n, out, 512);
        return r;
}

static void test_stale_marks(void **state)
{
        (void)state;
        struct rw_stale st = {0};
        char out[512];
        assert_int_equal(mark(&st, "a 1\nb{x=\"1 }\"} 2\n# c\nc 3\n", out, 512), 0);
        assert_string_equal(out, "");
        rw_stale_keep(&st);
        /* b went: one marker, with its labels as they were written. */
        assert_int_equal(mark(&st, "a 5\nc 6\n", out, 512), 1);
        assert_string_equal(out, "b{x=\"1 }\"} StaleNaN\n");
        /* That frame was not queued (no keep): the next one still ends b, and c too. */
        assert_int_equal(mark(&st, "a 7\n", out, 512), 2);
        assert_string_equal(out, "b{x=\"1 }\"} StaleNaN\nc StaleNaN\n");
        rw_stale_keep(&st);
        /* Once ended, no marker again; a series back is no marker either. */
        assert_int_equal(mark(&st, "a 8\nc 9\n", out, 512), 0);
        rw_stale_keep(&st);
        /* No room for the markers: none at all, the frame's record untouched. */
        assert_int_equal(mark(&st, "a 8\n", out, 2), -E2BIG);
        assert_string_equal(out, "");
        rw_stale_free(&st);
        rw_stale_free(&st);
}

/* Many series, most gone at once (a GPU's families): each gone one gets a marker. */
static void test_stale_many(void **state)
{
        (void)state;
        struct rw_stale st = {0};
        size_t cap = 1 << 20, len = 0, n2 = 0;
        char *f = malloc(cap), *g = malloc(cap), *rf = malloc(cap), *rg = malloc(cap);
        char *out = malloc(cap);
        assert_non_null(f);
        assert_non_null(g);
        assert_non_null(rf);
        assert_non_null(rg);
        assert_non_null(out);
        for (unsigned i = 0; i < 3000; i++) {
                len += (size_t)snprintf(f + len, cap - len, "s{i=\"%u\"} 1\n", i);
                if (i % 3 == 0)
                        n2 += (size_t)snprintf(g + n2, cap - n2, "s{i=\"%u\"} 1\n", i);
        }
        len = to_rec(f, rf, cap);
        assert_int_equal(rw_stale_mark(&st, rf, &len, cap), 0);
        rw_stale_keep(&st);
        n2 = to_rec(g, rg, cap);
        size_t l2 = n2;
        assert_int_equal(rw_stale_mark(&st, rg, &l2, cap), 2000);
        markers_text(rg, l2, n2, out, cap);
        assert_non_null(strstr(out, "s{i=\"2999\"} StaleNaN\n"));
        assert_null(strstr(out, "s{i=\"3\"} "));
        free(f);
        free(g);
        free(rf);
        free(rg);
        free(out);
        rw_stale_free(&st);
}

/* ---- the machine's identity ---- */

static void test_machine_id(void **state)
{
        (void)state;
        char id[RW_MACHINE_ID_LEN + 1] = "";
        const char *good = "4d3b0c0e8a7e4e2f9a1c0b5e6d7f8091\n";
        assert_int_equal(rw_machine_id_parse(good, strlen(good), id), 0);
        assert_string_equal(id, "4d3b0c0e8a7e4e2f9a1c0b5e6d7f8091");
        assert_int_equal(rw_machine_id_parse(good, 32, id), 0); /* no newline */
        /* Before the first boot (machine-id(5)): empty, or "uninitialized". */
        assert_int_equal(rw_machine_id_parse("", 0, id), -ENODATA);
        assert_int_equal(rw_machine_id_parse("\n", 1, id), -ENODATA);
        assert_int_equal(rw_machine_id_parse("uninitialized\n", 14, id), -ENODATA);
        /* Not 32 lowercase hex characters. */
        assert_int_equal(rw_machine_id_parse("4D3B0C0E8A7E4E2F9A1C0B5E6D7F8091\n", 33, id),
                         -EINVAL);
        assert_int_equal(rw_machine_id_parse("4d3b0c0e\n", 9, id), -EINVAL);
        assert_int_equal(rw_machine_id_parse("4d3b0c0e-8a7e-4e2f-9a1c-0b5e6d7f8091", 36, id),
                         -EINVAL);
        assert_string_equal(id, "4d3b0c0e8a7e4e2f9a1c0b5e6d7f8091"); /* untouched */
        assert_true(rw_hostname_is_default("raspberrypi"));
        assert_true(rw_hostname_is_default("localhost"));
        assert_true(rw_hostname_is_default("Ubuntu"));
        assert_false(rw_hostname_is_default("lobby-player-07"));
        assert_false(rw_hostname_is_default("raspberrypi7"));
}

/* ---- the queue ---- */

static char qdir[256];

static int q_setup(void **state)
{
        (void)state;
        snprintf(qdir, sizeof(qdir), "/tmp/vigil-rwq.XXXXXX");
        return mkdtemp(qdir) ? 0 : -1;
}

static int q_teardown(void **state)
{
        (void)state;
        char cmd[300];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", qdir);
        return system(cmd) == 0 ? 0 : -1;
}

static void append_n(struct rw_queue *q, unsigned from, unsigned n, size_t size,
                     uint64_t *ret_dropped)
{
        char *p = malloc(size);
        assert_non_null(p);
        for (unsigned i = from; i < from + n; i++) {
                uint64_t d = 0;
                memset(p, 'a' + i % 26, size);
                snprintf(p, size, "rec %u", i);
                assert_int_equal(rwq_append(q, 1000 + i, 10, p, size, &d), 0);
                if (ret_dropped)
                        *ret_dropped += d;
        }
        free(p);
}

static void test_queue_roundtrip(void **state)
{
        (void)state;
        struct rw_queue *q;
        struct rwq_batch b;
        struct rwq_stats st;
        assert_int_equal(rwq_open(qdir, RWQ_MIN_BYTES * 4, &q), 0);
        append_n(q, 0, 5, 100, NULL);
        rwq_get_stats(q, &st);
        assert_int_equal(st.samples, 50);
        assert_int_equal(st.oldest_ms, 1000);
        assert_int_equal(st.bytes, 5 * 124);
        assert_int_equal(rwq_read(q, 3, 1 << 20, &b), 0);
        assert_int_equal(b.n, 3);
        assert_int_equal(b.nsamples, 30);
        assert_string_equal((char *)b.recs[2].payload, "rec 2");
        assert_int_equal(b.recs[2].ts_ms, 1002);
        /* Not committed: read again from the same place (a failed send). */
        struct rwq_batch b2;
        assert_int_equal(rwq_read(q, 10, 1 << 20, &b2), 0);
        assert_int_equal(b2.n, 5);
        rwq_batch_free(&b2);
        assert_int_equal(rwq_commit(q, &b), 0);
        rwq_batch_free(&b);
        rwq_get_stats(q, &st);
        assert_int_equal(st.samples, 20);
        assert_int_equal(st.oldest_ms, 1003);
        rwq_close(q);
        /* A restart goes on from the cursor. */
        assert_int_equal(rwq_open(qdir, RWQ_MIN_BYTES * 4, &q), 0);
        rwq_get_stats(q, &st);
        assert_int_equal(st.samples, 20);
        assert_int_equal(st.oldest_ms, 1003);
        append_n(q, 5, 1, 100, NULL);
        assert_int_equal(rwq_read(q, 10, 1 << 20, &b), 0);
        assert_int_equal(b.n, 3);
        assert_string_equal((char *)b.recs[0].payload, "rec 3");
        assert_string_equal((char *)b.recs[2].payload, "rec 5");
        assert_int_equal(rwq_commit(q, &b), 0);
        rwq_batch_free(&b);
        rwq_get_stats(q, &st);
        assert_int_equal(st.samples, 0);
        assert_int_equal(st.oldest_ms, 0);
        assert_int_equal(rwq_read(q, 10, 1 << 20, &b), 0);
        assert_int_equal(b.n, 0);
        rwq_batch_free(&b);
        rwq_close(q);
}

static void test_queue_torn_tail(void **state)
{
        (void)state;
        struct rw_queue *q;
        struct rwq_batch b;
        struct rwq_stats st;
        char path[400];
        assert_int_equal(rwq_open(qdir, RWQ_MIN_BYTES, &q), 0);
        append_n(q, 0, 2, 50, NULL);
        rwq_close(q);
        /* A crash in the middle of a write: half a header and some bytes. */
        snprintf(path, sizeof(path), "%s/remote-write/seg-0000000000000001.q", qdir);
        int fd = open(path, O_WRONLY | O_APPEND);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "VRW1\x10\0\0", 7), 7);
        close(fd);
        assert_int_equal(rwq_open(qdir, RWQ_MIN_BYTES, &q), 0);
        rwq_get_stats(q, &st);
        assert_int_equal(st.samples, 20);
        assert_int_equal(st.bytes, 2 * 74);
        assert_int_equal(st.repairs, 1); /* the cut is counted */
        append_n(q, 2, 1, 50, NULL);
        assert_int_equal(rwq_read(q, 10, 1 << 20, &b), 0);
        assert_int_equal(b.n, 3);
        assert_string_equal((char *)b.recs[2].payload, "rec 2");
        rwq_batch_free(&b);
        rwq_close(q);
}

static void test_queue_bound(void **state)
{
        (void)state;
        struct rw_queue *q;
        struct rwq_batch b;
        struct rwq_stats st;
        uint64_t dropped = 0;
        /* 64 KiB bound, 8 KiB segments, records of 1 KiB: about 8 per segment. */
        assert_int_equal(rwq_open(qdir, RWQ_MIN_BYTES, &q), 0);
        append_n(q, 0, 200, 1000, &dropped);
        rwq_get_stats(q, &st);
        assert_true(st.bytes <= RWQ_MIN_BYTES);
        assert_true(dropped > 0);
        assert_int_equal(st.dropped, dropped);
        assert_int_equal(st.samples + dropped, 2000);
        /* The newest survive, the oldest went, and in order. */
        assert_int_equal(rwq_read(q, 1000, 100 << 20, &b), 0);
        assert_int_equal(b.nsamples, st.samples);
        assert_int_equal(b.recs[b.n - 1].ts_ms, 1199);
        assert_int_equal(b.recs[0].ts_ms, st.oldest_ms);
        for (size_t i = 1; i < b.n; i++)
                assert_int_equal(b.recs[i].ts_ms, b.recs[i - 1].ts_ms + 1);
        /* Segments dropped while a batch is in flight: its commit stays sane. */
        append_n(q, 200, 100, 1000, NULL);
        assert_int_equal(rwq_commit(q, &b), 0);
        rwq_batch_free(&b);
        rwq_get_stats(q, &st);
        assert_true(st.bytes <= RWQ_MIN_BYTES);
        assert_int_equal(rwq_read(q, 1000, 100 << 20, &b), 0);
        assert_true(b.n > 0);
        assert_int_equal(b.recs[b.n - 1].ts_ms, 1299);
        rwq_batch_free(&b);
        rwq_close(q);
}

/* A cursor write that fails (here a directory in the way of cursor.tmp, as a full disk
 * makes it fail) is retried by rwq_sync without another commit; before, the cursor on
 * disk stayed where it was and the next start sent delivered records again. */
static void test_queue_cursor_retry(void **state)
{
        (void)state;
        struct rw_queue *q = NULL;
        struct rwq_batch b;
        char path[400];
        assert_int_equal(rwq_open(qdir, RWQ_MIN_BYTES, &q), 0);
        append_n(q, 0, 5, 100, NULL);
        assert_int_equal(rwq_sync(q), 0);
        snprintf(path, sizeof(path), "%s/" RWQ_DIR "/cursor.tmp", qdir);
        assert_int_equal(mkdir(path, 0755), 0);
        assert_int_equal(rwq_read(q, 3, 1 << 20, &b), 0);
        assert_int_equal(b.n, 3);
        assert_int_equal(rwq_commit(q, &b), -EISDIR);
        rwq_batch_free(&b);
        assert_int_equal(rwq_sync(q), -EISDIR);
        assert_int_equal(rmdir(path), 0);
        assert_int_equal(rwq_sync(q), 0);
        /* Reopened (a restart after a crash): the two records not taken, no more. */
        struct rw_queue *q2 = NULL;
        assert_int_equal(rwq_open(qdir, RWQ_MIN_BYTES, &q2), 0);
        assert_int_equal(rwq_read(q2, 10, 1 << 20, &b), 0);
        assert_int_equal(b.n, 2);
        assert_int_equal(b.recs[0].ts_ms, 1003);
        rwq_batch_free(&b);
        rwq_close(q2);
        rwq_close(q);
}

/* The path of segment seq in the test queue. */
static void seg_path(char *out, size_t cap, uint64_t seq)
{
        snprintf(out, cap, "%s/" RWQ_DIR "/seg-%016llu.q", qdir, (unsigned long long)seq);
}

/* The ts_ms of every record waiting, in order, as a string "1000 1001 ...". */
static void read_all(struct rw_queue *q, char *out, size_t cap)
{
        struct rwq_batch b;
        size_t o = 0;
        out[0] = '\0';
        assert_int_equal(rwq_read(q, 1000, 100 << 20, &b), 0);
        for (size_t i = 0; i < b.n && o < cap; i++)
                o += (size_t)snprintf(out + o, cap - o, "%s%lld", i ? " " : "",
                                      (long long)b.recs[i].ts_ms);
        rwq_batch_free(&b);
}

/* The records waiting are those at want ("1000 1001 ..."). */
static void assert_waiting(struct rw_queue *q, const char *want)
{
        char got[400];
        read_all(q, got, sizeof(got));
        assert_string_equal(got, want);
}

/* A stray segment far below an empty one (a hand copy), and a lone one at the top of
 * the 16 digits: both open at once (the segment list, not a count from one number to
 * the other), their records are read, and new ones follow in order. Before, the first
 * looped over 2^32 numbers, and the second's next segment had a 17-digit name that
 * the next start did not see. */
static void test_queue_stray_segments(void **state)
{
        (void)state;
        struct rw_queue *q;
        struct rwq_stats st;
        char path[400], to[400];
        assert_int_equal(rwq_open(qdir, RWQ_MIN_BYTES, &q), 0);
        append_n(q, 0, 3, 100, NULL);
        rwq_close(q);
        seg_path(path, sizeof(path), 0x100000000ull);
        int fd = open(path, O_WRONLY | O_CREAT, 0644);
        assert_true(fd >= 0);
        close(fd);
        assert_int_equal(rwq_open(qdir, RWQ_MIN_BYTES, &q), 0);
        append_n(q, 3, 1, 100, NULL);
        assert_waiting(q, "1000 1001 1002 1003");
        rwq_close(q);
        /* Only the top one left (the one above taken away with its record): renumbered,
         * read, and the next segments follow it. */
        unlink(path);
        snprintf(path, sizeof(path), "%s/" RWQ_DIR "/cursor", qdir);
        unlink(path);
        seg_path(path, sizeof(path), 1);
        seg_path(to, sizeof(to), 9999999999999999ull);
        assert_int_equal(rename(path, to), 0);
        assert_int_equal(rwq_open(qdir, RWQ_MIN_BYTES, &q), 0);
        rwq_get_stats(q, &st);
        assert_int_equal(st.samples, 30);
        assert_int_equal(st.repairs, 1);
        append_n(q, 3, 30, 1000, NULL); /* past 8 KiB: a second segment */
        assert_int_equal(access(to, F_OK), -1);
        seg_path(path, sizeof(path), 2);
        assert_int_equal(access(path, F_OK), 0);
        struct rwq_batch b;
        assert_int_equal(rwq_read(q, 1000, 100 << 20, &b), 0);
        assert_int_equal(b.n, 33);
        for (size_t i = 0; i < b.n; i++)
                assert_int_equal(b.recs[i].ts_ms, 1000 + (int64_t)i);
        rwq_batch_free(&b);
        rwq_close(q);
}

/* Flip one byte at off of segment seq. */
static void flip(uint64_t seq, off_t off)
{
        char path[400];
        unsigned char c;
        seg_path(path, sizeof(path), seq);
        int fd = open(path, O_RDWR);
        assert_true(fd >= 0);
        assert_int_equal(pread(fd, &c, 1, off), 1);
        c ^= 0x5a;
        assert_int_equal(pwrite(fd, &c, 1, off), 1);
        close(fd);
}

/* A damaged record costs that record, counted once, and the push goes on with the
 * next; a damaged first header does not cut the segment at open. Before, the first
 * stopped every read for the run and the second truncated the segment to nothing. */
static void test_queue_damage(void **state)
{
        (void)state;
        struct rw_queue *q;
        struct rwq_stats st;
        assert_int_equal(rwq_open(qdir, RWQ_MIN_BYTES * 4, &q), 0);
        append_n(q, 0, 5, 100, NULL);
        flip(1, 2 * 124 + 24 + 50); /* the payload of the third record */
        assert_waiting(q, "1000 1001 1003 1004");
        assert_waiting(q, "1000 1001 1003 1004"); /* a retry: not counted again */
        rwq_get_stats(q, &st);
        assert_int_equal(st.repairs, 1);
        assert_int_equal(st.damaged, 10);
        assert_int_equal(st.samples, 40);
        /* New records after the damage are read too. */
        append_n(q, 5, 1, 100, NULL);
        assert_waiting(q, "1000 1001 1003 1004 1005");
        rwq_close(q);
        /* The first header damaged: the segment is kept, the rest is read. */
        flip(1, 0);
        assert_int_equal(rwq_open(qdir, RWQ_MIN_BYTES * 4, &q), 0);
        rwq_get_stats(q, &st);
        assert_int_equal(st.bytes, 6 * 124);
        assert_waiting(q, "1001 1003 1004 1005");
        rwq_get_stats(q, &st);
        assert_int_equal(st.repairs, 2);
        struct rwq_batch b;
        assert_int_equal(rwq_read(q, 1000, 100 << 20, &b), 0);
        assert_int_equal(rwq_commit(q, &b), 0);
        rwq_batch_free(&b);
        rwq_get_stats(q, &st);
        assert_int_equal(st.samples, 0);
        rwq_close(q);
}

/* A segment of a later format is kept aside, not read as damage nor deleted; a
 * segment that cannot be opened for appending makes the next number start. */
static void test_queue_future_and_unopenable(void **state)
{
        (void)state;
        struct rw_queue *q;
        struct rwq_stats st;
        char path[400], aside[420];
        assert_int_equal(rwq_open(qdir, RWQ_MIN_BYTES, &q), 0);
        append_n(q, 0, 2, 100, NULL);
        rwq_close(q);
        flip(1, 3); /* "VRW1" -> "VRW" and another version byte */
        assert_int_equal(rwq_open(qdir, RWQ_MIN_BYTES, &q), 0);
        seg_path(path, sizeof(path), 1);
        snprintf(aside, sizeof(aside), "%s.unreadable", path);
        assert_int_equal(access(aside, F_OK), 0);
        assert_int_equal(access(path, F_OK), -1);
        rwq_get_stats(q, &st);
        assert_int_equal(st.repairs, 1);
        append_n(q, 2, 1, 100, NULL);
        assert_waiting(q, "1002");
        rwq_close(q);
        /* The last segment a dangling link: appends go to the next. */
        seg_path(path, sizeof(path), 3);
        assert_int_equal(symlink("/nonexistent/vigil-rwq", path), 0);
        assert_int_equal(rwq_open(qdir, RWQ_MIN_BYTES, &q), 0);
        append_n(q, 3, 2, 100, NULL);
        assert_waiting(q, "1002 1003 1004");
        seg_path(path, sizeof(path), 4);
        assert_int_equal(access(path, F_OK), 0);
        rwq_get_stats(q, &st);
        assert_true(st.repairs >= 1);
        rwq_close(q);
}

/* A directory that refuses every new file (here: vigil's user lost the right to write
 * it) fails each append, and no segment number is used up for it: once it can write
 * again, the first segment is seg-1. Root only (seteuid). */
static void test_queue_dir_refuses(void **state)
{
        (void)state;
        struct rw_queue *q = NULL;
        char path[400];
        if (geteuid() != 0) {
                skip();
                return;
        }
        assert_int_equal(rwq_open(qdir, RWQ_MIN_BYTES, &q), 0);
        assert_int_equal(seteuid(65534), 0);
        int r[5];
        for (int i = 0; i < 5; i++)
                r[i] = rwq_append(q, 1000 + i, 10, "x", 1, NULL);
        assert_int_equal(seteuid(0), 0);
        for (int i = 0; i < 5; i++)
                assert_int_equal(r[i], -EACCES);
        append_n(q, 5, 1, 100, NULL);
        seg_path(path, sizeof(path), 1);
        assert_int_equal(access(path, F_OK), 0);
        rwq_close(q);
}

/* Acknowledged bytes given back to a full disk (a hole, zeros) are not read as damage
 * at the next start, even when the hole is the whole last segment. */
static void test_queue_hole_not_damage(void **state)
{
        (void)state;
        struct rw_queue *q = NULL;
        struct rwq_batch b;
        struct rwq_stats st;
        char path[400];
        assert_int_equal(rwq_open(qdir, RWQ_MIN_BYTES, &q), 0);
        append_n(q, 0, 2, 2048 - 24, NULL); /* one page in all */
        assert_int_equal(rwq_read(q, 10, 1 << 20, &b), 0);
        assert_int_equal(b.n, 2);
        assert_int_equal(rwq_commit(q, &b), 0);
        rwq_batch_free(&b);
        rwq_close(q);
        seg_path(path, sizeof(path), 1);
        int fd = open(path, O_WRONLY);
        assert_true(fd >= 0);
        int r = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096);
        close(fd);
        if (r < 0) {
                skip(); /* a file system without holes */
                return;
        }
        assert_int_equal(rwq_open(qdir, RWQ_MIN_BYTES, &q), 0);
        rwq_get_stats(q, &st);
        assert_int_equal(st.repairs, 0);
        append_n(q, 2, 1, 100, NULL);
        assert_waiting(q, "1002");
        rwq_close(q);
}

static void test_queue_unwritable(void **state)
{
        (void)state;
        struct rw_queue *q = NULL;
        char path[400];
        snprintf(path, sizeof(path), "%s/not-a-dir", qdir);
        int fd = open(path, O_WRONLY | O_CREAT, 0644);
        assert_true(fd >= 0);
        close(fd);
        /* The log "directory" is a file: the queue directory cannot be made. */
        assert_int_equal(rwq_open(path, RWQ_MIN_BYTES, &q), -ENOTDIR);
        assert_null(q);
}

/* ---- config ---- */

static void test_config(void **state)
{
        (void)state;
        struct rw_config c;
        char err[256];
        const char *text = "---\n"
                           "push_interval: 2s\n"
                           "queue_max_bytes: 8MiB   # the bound\n"
                           "timeout: 500ms\n"
                           "basic_auth:\n"
                           "  username: player\n"
                           "  password_file: pw\n"
                           "tls_config:\n"
                           "  ca_file: /etc/ca.pem\n"
                           "  cert_file: \"my cert.pem\"\n"
                           "  key_file: key.pem\n"
                           "external_labels:\n"
                           "  site: lobby\n"
                           "  rack: 'r 1'\n";
        rwconfig_defaults(&c);
        assert_int_equal(c.push_interval_ns, 15000000000LL);
        assert_int_equal(c.queue_max_bytes, 64ull << 20);
        assert_int_equal(rwconfig_parse(text, strlen(text), "/etc/vigil", &c, err, sizeof(err)), 0);
        assert_int_equal(c.push_interval_ns, 2000000000LL);
        assert_int_equal(c.timeout_ns, 500000000LL);
        assert_int_equal(c.queue_max_bytes, 8ull << 20);
        assert_string_equal(c.username, "player");
        assert_string_equal(c.password_file, "/etc/vigil/pw");
        assert_string_equal(c.ca_file, "/etc/ca.pem");
        assert_string_equal(c.cert_file, "/etc/vigil/my cert.pem");
        assert_int_equal(c.nlabels, 2);
        assert_string_equal(c.labels[1].name, "rack");
        assert_string_equal(c.labels[1].value, "r 1");
}

static void expect_error(const char *text, const char *want)
{
        struct rw_config c;
        char err[256];
        rwconfig_defaults(&c);
        assert_int_equal(rwconfig_parse(text, strlen(text), NULL, &c, err, sizeof(err)), -EINVAL);
        if (!strstr(err, want))
                fail_msg("error '%s' lacks '%s'", err, want);
}

static void test_config_errors(void **state)
{
        (void)state;
        expect_error("url: x\n", "line 1: unsupported key 'url'");
        expect_error("push_interval: soon\n", "push_interval");
        expect_error("push_interval: 1ms\n", "10ms or more");
        expect_error("queue_max_bytes: 1KiB\n", "64KiB or more");
        expect_error("queue_max_bytes: 12XB\n", "queue_max_bytes");
        expect_error("basic_auth:\n  user: x\n", "line 2: unsupported key 'user'");
        expect_error("basic_auth:\n  password: x\n", "needs a username");
        expect_error("bearer_token_file: t\nbasic_auth:\n  username: u\n", "exclude");
        expect_error("tls_config:\n  cert_file: c\n", "go together");
        expect_error("external_labels:\n  __x: y\n", "not a label name");
        expect_error("external_labels:\n  a: 1\n  a: 2\n", "duplicate label");
        expect_error("timeout: 1s\ntimeout: 2s\n", "line 2: duplicate key");
        expect_error("external_labels:\n\ta: 1\n", "tab");
        expect_error("  site: x\n", "unexpected indentation");
        expect_error("tls_config: x\n", "indented block");
        expect_error("external_labels:\n  a: 1\n   b: 2\n", "inconsistent indentation");
}

/* Comments after a mapping's key (as in README's example), and errors across keys naming
 * the line of the key they concern. */
static void test_config_comments_and_lines(void **state)
{
        (void)state;
        struct rw_config c;
        char err[256];
        const char *text = "push_interval: 15s          # a frame every 15 s\n"
                           "basic_auth:                 # or bearer_token_file\n"
                           "  username: player\n"
                           "  password_file: secret     # or password: ...\n"
                           "tls_config:\n"
                           "  ca_file: ca.pem           # default: the system's CAs\n"
                           "external_labels:            # added to every series\n"
                           "  site: lobby\n";
        rwconfig_defaults(&c);
        assert_int_equal(rwconfig_parse(text, strlen(text), NULL, &c, err, sizeof(err)), 0);
        assert_string_equal(c.username, "player");
        assert_string_equal(c.password_file, "secret");
        assert_string_equal(c.ca_file, "ca.pem");
        assert_int_equal(c.nlabels, 1);
        assert_string_equal(c.labels[0].value, "lobby");
        static const struct {
                const char *text, *msg;
        } cases[] = {
            {"timeout: 1s\nbasic_auth:\n  password: x\n", "line 2: basic_auth needs a username"},
            {"bearer_token_file: t\ntimeout: 1s\nbasic_auth:\n  username: u\n",
             "line 3: basic_auth and bearer_token_file exclude each other"},
            {"basic_auth:\n  username: u\n  password: p\n  password_file: f\n",
             "line 1: basic_auth: password and password_file exclude each other"},
            {"timeout: 1s\ntls_config:\n  key_file: k\n",
             "line 2: tls_config: cert_file and key_file go together"},
        };
        for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                rwconfig_defaults(&c);
                int r = rwconfig_parse(cases[i].text, strlen(cases[i].text), NULL, &c, err,
                                       sizeof(err));
                if (r != -EINVAL || strcmp(err, cases[i].msg) != 0)
                        fail_msg("case %u: got %d '%s', want '%s'", i, r, err, cases[i].msg);
        }
}

static void test_secret(void **state)
{
        (void)state;
        char path[400], out[64];
        snprintf(path, sizeof(path), "%s/token", qdir);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs("  abc.def \r\nsecond line\n", f);
        fclose(f);
        assert_int_equal(rwconfig_read_secret(path, out, sizeof(out)), 0);
        assert_string_equal(out, "abc.def");
        assert_int_equal(rwconfig_read_secret(path, out, 4), -E2BIG);
        f = fopen(path, "w");
        fclose(f);
        assert_int_equal(rwconfig_read_secret(path, out, sizeof(out)), -EINVAL);
        assert_int_equal(rwconfig_read_secret("/nonexistent/x", out, sizeof(out)), -ENOENT);
}

/* ---- backoff ---- */

/* The queue-full warning: at the first drop, then at most every RW_FULL_WARN_NS with
 * what was dropped since (it used to be said once in the life of the process). */
static void test_full_warn(void **state)
{
        (void)state;
        struct rw_full_warn w = {0};
        const int64_t s = 1000000000LL;
        assert_int_equal(rw_full_warn_due(&w, 5 * s, 0), 0);
        assert_int_equal(rw_full_warn_due(&w, 10 * s, 40), 40);
        assert_int_equal(rw_full_warn_due(&w, 20 * s, 30), 0);
        assert_int_equal(rw_full_warn_due(&w, 10 * s + RW_FULL_WARN_NS - 1, 5), 0);
        assert_int_equal(rw_full_warn_due(&w, 10 * s + RW_FULL_WARN_NS, 0), 0);
        assert_int_equal(rw_full_warn_due(&w, 10 * s + RW_FULL_WARN_NS, 7), 42);
        /* Hours later, a new episode: said at once. */
        assert_int_equal(rw_full_warn_due(&w, 10 * s + 20 * RW_FULL_WARN_NS, 3), 3);
}

/* Refusals: the first said at once, the rest summed up once a window, and what waits
 * said at exit. Before, every refused request was a line. */
static void test_refusals(void **state)
{
        (void)state;
        struct rw_refusals r = {0};
        const int64_t s = 1000000000LL;
        uint64_t n = 0;
        assert_int_equal(rw_refusals_due(&r, 0, 0, NULL, &n), 0);
        assert_int_equal(rw_refusals_due(&r, 1 * s, 12, "HTTP 400: out of bounds", &n), 1);
        assert_int_equal(n, 12);
        for (int i = 0; i < 59; i++)
                assert_int_equal(rw_refusals_due(&r, (2 + i) * s, 12, "HTTP 400: x", &n), 0);
        assert_int_equal(rw_refusals_due(&r, 1 * s + RW_FULL_WARN_NS, 7, "HTTP 413: big", &n), 60);
        assert_int_equal(n, 59 * 12 + 7);
        assert_string_equal(r.why, "HTTP 413: big");
        assert_int_equal(rw_refusals_due(&r, 2 * s + RW_FULL_WARN_NS, 5, "HTTP 400: y", &n), 0);
        /* At exit: what waits. */
        assert_int_equal(rw_refusals_due(&r, 3 * s + RW_FULL_WARN_NS, 0, NULL, &n), 1);
        assert_int_equal(n, 5);
        assert_int_equal(rw_refusals_due(&r, 4 * s + RW_FULL_WARN_NS, 0, NULL, &n), 0);
}

static void test_backoff(void **state)
{
        (void)state;
        uint64_t rng = 42;
        int64_t lo[8] = {0}, hi[8] = {0};
        for (unsigned f = 1; f <= 7; f++) {
                lo[f] = INT64_MAX;
                for (unsigned i = 0; i < 200; i++) {
                        int64_t d = rw_backoff_ms(f, 20000, 0, &rng);
                        lo[f] = d < lo[f] ? d : lo[f];
                        hi[f] = d > hi[f] ? d : hi[f];
                }
                int64_t full = (int64_t)RW_BACKOFF_MIN_MS << (f - 1);
                full = full > 20000 ? 20000 : full;
                assert_true(lo[f] >= full / 2);
                assert_true(hi[f] <= full);
                /* Jitter: not the same delay every time. */
                assert_true(hi[f] - lo[f] >= full / 8);
        }
        /* Capped. */
        assert_true(rw_backoff_ms(60, 20000, 0, &rng) <= 20000);
        /* Retry-After wins, within its own cap. */
        assert_int_equal(rw_backoff_ms(1, 20000, 7, &rng), 7000);
        assert_int_equal(rw_backoff_ms(1, 20000, 99999, &rng), RW_RETRY_AFTER_MAX * 1000);
}

static void test_machine_id_file(void **state)
{
        (void)state;
        char path[400], id[RW_MACHINE_ID_LEN + 1];
        snprintf(path, sizeof(path), "%s/etc", qdir);
        assert_int_equal(rw_machine_id_read(qdir, id), -ENOENT);
        assert_int_equal(mkdir(path, 0755), 0);
        snprintf(path, sizeof(path), "%s/etc/machine-id", qdir);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs("uninitialized\n", f);
        fclose(f);
        assert_int_equal(rw_machine_id_read(qdir, id), -ENODATA);
        f = fopen(path, "w");
        assert_non_null(f);
        fputs("0123456789abcdef0123456789abcdef\n", f);
        fclose(f);
        assert_int_equal(rw_machine_id_read(qdir, id), 0);
        assert_string_equal(id, "0123456789abcdef0123456789abcdef");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_encode_exact),
            cmocka_unit_test(test_encode_labels),
            cmocka_unit_test(test_encode_bad_and_many),
            cmocka_unit_test(test_encode_stale),
            cmocka_unit_test(test_stale_marks),
            cmocka_unit_test(test_stale_many),
            cmocka_unit_test(test_machine_id),
            cmocka_unit_test_setup_teardown(test_queue_roundtrip, q_setup, q_teardown),
            cmocka_unit_test_setup_teardown(test_queue_torn_tail, q_setup, q_teardown),
            cmocka_unit_test_setup_teardown(test_queue_bound, q_setup, q_teardown),
            cmocka_unit_test_setup_teardown(test_queue_unwritable, q_setup, q_teardown),
            cmocka_unit_test_setup_teardown(test_queue_cursor_retry, q_setup, q_teardown),
            cmocka_unit_test_setup_teardown(test_queue_stray_segments, q_setup, q_teardown),
            cmocka_unit_test_setup_teardown(test_queue_damage, q_setup, q_teardown),
            cmocka_unit_test_setup_teardown(test_queue_future_and_unopenable, q_setup, q_teardown),
            cmocka_unit_test_setup_teardown(test_queue_dir_refuses, q_setup, q_teardown),
            cmocka_unit_test_setup_teardown(test_queue_hole_not_damage, q_setup, q_teardown),
            cmocka_unit_test(test_config),
            cmocka_unit_test(test_config_errors),
            cmocka_unit_test(test_config_comments_and_lines),
            cmocka_unit_test_setup_teardown(test_secret, q_setup, q_teardown),
            cmocka_unit_test_setup_teardown(test_machine_id_file, q_setup, q_teardown),
            cmocka_unit_test(test_backoff),
            cmocka_unit_test(test_full_warn),
            cmocka_unit_test(test_refusals),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
