/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the remote-write push records a frame from the renderer's samples
 * (push/rw_record.c, metrics_visit), not from its /metrics text. For random frames the
 * WriteRequest built from the sample records must be byte for byte the one built by
 * parsing the exposition text (the path of queues written before), and the records
 * must be no exposition text at all: the text parser refuses them, so the push cannot
 * quietly go back through it. Also: a record read back sample by sample, a damaged
 * one refused, and an older queue's text record still encoded. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/counters.h"
#include "core/frame.h"
#include "core/frame_fields.h"
#include "core/metric_defs.h"
#include "metrics/metrics.h"
#include "push/rw_proto.h"
#include "push/rw_record.h"
#include "util/strbuf.h"
#include "test_rng.h"

#define REC_CAP (4u << 20)

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static unsigned below(unsigned n)
{
        return (unsigned)(test_rng_next(&rng) % n);
}

/* Missing, zero (both signs), integers, fractions, full precision, huge, tiny, inf. */
static double rnd_double(void)
{
        switch (below(10)) {
        case 0:
                return NAN;
        case 1:
                return below(2) ? 0.0 : -0.0;
        case 2:
                return below(1001);
        case 3:
                return -(double)below(1000) / 4.0;
        case 4:
                return (double)(test_rng_next(&rng) >> 11) * 1e3;
        case 5:
                return (double)(test_rng_next(&rng) >> 11) / 9007199254740992.0 * 1e-6;
        case 6:
                return below(2) ? INFINITY : -INFINITY;
        default:
                return (double)(test_rng_next(&rng) >> 11) / 9007199254740992.0 * 1e4;
        }
}

static const char *const words[] = {"a",           "GeForce RTX 4090", "quote\"d",
                                    "back\\slash", "new\nline",        "comma,x",
                                    "caf\xc3\xa9", "bad\xff",          "x y }"};

static void rnd_str(char *buf, size_t cap)
{
        snprintf(buf, cap, "%s", words[below(sizeof(words) / sizeof(words[0]))]);
}

/* Every /metrics series of obj (a struct of the area of t[0..n)) a random value. */
static void fill_table(void *obj, const struct field_desc *t, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (t[i].metric.row == MR_SERIES) {
                        double v = rnd_double();
                        memcpy((char *)obj + t[i].off, &v, sizeof(v));
                }
}

static void fill_frame(struct frame *f, struct counters *x)
{
        frame_clear(f);
        counters_clear(x);
        struct host_frame *h = &f->host;
        fill_table(h, host_fields, host_fields_count);
        h->ncpu = below(6);
        h->cpu_total_pct = rnd_double();
        for (unsigned i = 0; i < h->ncpu; i++)
                h->cpu_pct[i] = rnd_double();
        h->ntemps = below(4);
        for (unsigned i = 0; i < h->ntemps; i++) {
                rnd_str(h->temps[i].chip, sizeof(h->temps[i].chip));
                rnd_str(h->temps[i].sensor, sizeof(h->temps[i].sensor));
                h->temps[i].celsius = rnd_double();
        }
        rnd_str(h->governor, sizeof(h->governor));
        f->nwatches = below(3);
        for (unsigned w = 0; w < f->nwatches; w++) {
                rnd_str(f->watches[w].name, sizeof(f->watches[w].name));
                fill_table(&f->watches[w], watch_fields, watch_fields_count);
        }
        f->rpi.present = below(2);
        fill_table(&f->rpi, rpi_fields, rpi_fields_count);
        f->rpi.throttled_valid = below(2);
        f->rpi.throttled = test_rng_next(&rng) & 0xf000f;
        rnd_str(f->rpi.model, sizeof(f->rpi.model));
        for (unsigned i = 0; i < FS_COUNT; i++) {
                fill_table(&f->storage.fs[i], fs_fields, fs_fields_count);
                rnd_str(f->storage.fs[i].mount, sizeof(f->storage.fs[i].mount));
                rnd_str(f->storage.fs[i].device, sizeof(f->storage.fs[i].device));
        }
        f->ngpus = below(4);
        for (unsigned g = 0; g < f->ngpus; g++) {
                struct gpu_frame *gf = &f->gpus[g];
                gf->present = below(8) != 0;
                gf->ok = below(4) != 0;
                gf->index = g;
                rnd_str(gf->name, sizeof(gf->name));
                rnd_str(gf->uuid, sizeof(gf->uuid));
                for (size_t i = 0; i < gpu_fields_count; i++)
                        if (gpu_fields[i].metric.row == MR_SERIES) {
                                double v = rnd_double();
                                memcpy((char *)gf + gpu_fields[i].off, &v, sizeof(v));
                        }
                gf->nfans = below(3);
                for (unsigned k = 0; k < gf->nfans; k++)
                        gf->fan_speed_pct[k] = rnd_double();
                gf->throttle_valid = below(2);
                gf->throttle_mask = test_rng_next(&rng);
                gf->pstate = below(17);
                for (unsigned k = below(4); k > 0; k--)
                        (void)counters_add_xid(x, g, 13 + below(70));
        }
        for (unsigned k = below(3); k > 0; k--)
                (void)counters_set_rule(x, below(2) ? "temp_warn" : "mem\"low", below(2));
        x->push.on = below(2);
        x->push.oldest_age_s = rnd_double();
        f->self.samples[0] = below(100);
        f->self.sample_seconds[0] = rnd_double();
}

/* et and er (freed here) hold the same samples and give the same WriteRequest bytes. */
static void assert_same_request(struct rw_encoder *et, struct rw_encoder *er)
{
        uint8_t *bt, *br;
        size_t lt, lr;
        assert_int_equal(et->nsamples, er->nsamples);
        assert_int_equal(rw_enc_finish(et, &bt, &lt), 0);
        assert_int_equal(rw_enc_finish(er, &br, &lr), 0);
        assert_int_equal(lt, lr);
        assert_memory_equal(bt, br, lt);
        free(bt);
        free(br);
        rw_enc_free(et);
        rw_enc_free(er);
}

/* The protobuf of both paths for n frames, one encoder each: equal bytes. */
static void test_same_request(void **state)
{
        (void)state;
        static struct frame f;
        static struct counters x;
        struct strbuf sb;
        char *rec = malloc(REC_CAP);
        assert_non_null(rec);
        assert_int_equal(sb_init_heap(&sb, 1u << 16, 1u << 24), 0);
        struct rw_label extra[] = {{"machine_id", "0123456789abcdef"}, {"job", "vigil"}};
        for (unsigned round = 0; round < 200; round++) {
                struct rw_encoder et, er;
                assert_int_equal(rw_enc_init(&et, extra, 2), 0);
                assert_int_equal(rw_enc_init(&er, extra, 2), 0);
                for (unsigned i = 0; i < 1 + below(4); i++) {
                        int64_t ts = 1796235167000LL + round * 10000 + i * 1000;
                        size_t len = 0;
                        fill_frame(&f, &x);
                        sb_reset(&sb);
                        assert_int_equal(metrics_render(&sb, &f, &x), 0);
                        assert_int_equal(rw_enc_add_text(&et, sb.buf, sb.len, ts), 0);
                        int n = rw_rec_frame(rec, REC_CAP, &len, &f, &x);
                        assert_true(n > 0);
                        assert_true(rw_rec_is_samples(rec, len));
                        /* No text: the exposition parser cannot read it. */
                        struct rw_encoder junk;
                        assert_int_equal(rw_enc_init(&junk, NULL, 0), 0);
                        assert_int_equal(rw_enc_add_text(&junk, rec, len, ts), -EINVAL);
                        rw_enc_free(&junk);
                        assert_int_equal(rw_enc_add_payload(&er, rec, len, ts), 0);
                }
                assert_same_request(&et, &er);
        }
        sb_free(&sb);
        free(rec);
}

/* A record read back: keys and values as put, markers included; damage refused. */
static void test_record_format(void **state)
{
        (void)state;
        char rec[256];
        size_t len = 0, pos = 0, kl;
        const char *key;
        double v, stale;
        uint64_t bits;
        memcpy(&stale, &(uint64_t){RW_STALE_NAN_BITS}, 8);
        assert_int_equal(rw_rec_put(rec, sizeof(rec), &len, "up", 2, 1.5), 0);
        assert_int_equal(rw_rec_put(rec, sizeof(rec), &len, "t{a=\"x\"}", 9, stale), 0);
        assert_int_equal(len, RW_REC_MAGIC_LEN + 2 + 2 + 8 + 2 + 9 + 8);
        assert_int_equal(rw_rec_next(rec, len, &pos, &key, &kl, &v), 1);
        assert_true(kl == 2 && !memcmp(key, "up", 2) && v == 1.5);
        assert_int_equal(rw_rec_next(rec, len, &pos, &key, &kl, &v), 1);
        memcpy(&bits, &v, 8);
        assert_true(kl == 9 && bits == RW_STALE_NAN_BITS);
        assert_int_equal(rw_rec_next(rec, len, &pos, &key, &kl, &v), 0);
        /* No room: nothing written. */
        size_t full = len;
        assert_int_equal(rw_rec_put(rec, len + 5, &full, "up", 2, 1), -E2BIG);
        assert_int_equal(full, len);
        /* Cut short, or no magic: refused, nothing after the damage added. */
        pos = 0;
        assert_int_equal(rw_rec_next(rec, len - 1, &pos, &key, &kl, &v), 1);
        assert_int_equal(rw_rec_next(rec, len - 1, &pos, &key, &kl, &v), -EBADMSG);
        struct rw_encoder e;
        assert_int_equal(rw_enc_init(&e, NULL, 0), 0);
        assert_int_equal(rw_enc_add_record(&e, rec, len - 1, 5), -EBADMSG);
        assert_int_equal(rw_enc_add_record(&e, "up 1\n", 5, 5), -EBADMSG);
        rw_enc_free(&e);
}

/* A queue written before the sample records holds /metrics lines: still encoded, the
 * same as the record of the same samples. */
static void test_old_text_record(void **state)
{
        (void)state;
        const char *text = "up 1\nt{a=\"q\\\"\"} 2.5\nt{a=\"b\"} StaleNaN\n";
        char rec[256];
        size_t len = 0;
        double stale;
        memcpy(&stale, &(uint64_t){RW_STALE_NAN_BITS}, 8);
        assert_int_equal(rw_rec_put(rec, sizeof(rec), &len, "up", 2, 1), 0);
        assert_int_equal(rw_rec_put(rec, sizeof(rec), &len, "t{a=\"q\\\"\"}", 11, 2.5), 0);
        assert_int_equal(rw_rec_put(rec, sizeof(rec), &len, "t{a=\"b\"}", 8, stale), 0);
        struct rw_encoder et, er;
        assert_int_equal(rw_enc_init(&et, NULL, 0), 0);
        assert_int_equal(rw_enc_init(&er, NULL, 0), 0);
        assert_int_equal(rw_enc_add_payload(&et, text, strlen(text), 7), 0);
        assert_int_equal(rw_enc_add_payload(&er, rec, len, 7), 0);
        assert_int_equal(et.nsamples, 3);
        assert_same_request(&et, &er);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_same_request),
            cmocka_unit_test(test_record_format),
            cmocka_unit_test(test_old_text_record),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
