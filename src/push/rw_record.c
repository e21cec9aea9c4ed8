/* SPDX-License-Identifier: Apache-2.0 */
/* The remote-write sample record. See rw_record.h.
 *
 *   00 76 73 31 | 1d 00 "vigil_gpu_power_watts{gpu=\"0\"}" | 00 00 00 00 00 f0 6c 40
 */
#include "push/rw_record.h"

#include <errno.h>
#include <string.h>

#include "metrics/metrics.h"

bool rw_rec_is_samples(const void *p, size_t len)
{
        return len >= RW_REC_MAGIC_LEN && !memcmp(p, RW_REC_MAGIC, RW_REC_MAGIC_LEN);
}

int rw_rec_put(char *buf, size_t cap, size_t *len, const char *key, size_t keylen, double v)
{
        size_t o = *len ? *len : RW_REC_MAGIC_LEN;
        uint16_t kl = (uint16_t)keylen;
        if (keylen > UINT16_MAX || o + 2 + keylen + 8 > cap)
                return -E2BIG;
        if (!*len)
                memcpy(buf, RW_REC_MAGIC, RW_REC_MAGIC_LEN);
        memcpy(buf + o, &kl, 2);
        memcpy(buf + o + 2, key, keylen);
        memcpy(buf + o + 2 + keylen, &v, 8);
        *len = o + 2 + keylen + 8;
        return 0;
}

int rw_rec_next(const char *buf, size_t len, size_t *pos, const char **ret_key, size_t *ret_keylen,
                double *ret_v)
{
        size_t o = *pos;
        uint16_t kl;
        if (o == 0) {
                if (!rw_rec_is_samples(buf, len))
                        return -EBADMSG;
                o = RW_REC_MAGIC_LEN;
        }
        if (o >= len)
                return 0;
        if (len - o < 2)
                return -EBADMSG;
        memcpy(&kl, buf + o, 2);
        if (kl == 0 || len - o - 2 < (size_t)kl + 8)
                return -EBADMSG;
        *ret_key = buf + o + 2;
        *ret_keylen = kl;
        memcpy(ret_v, buf + o + 2 + kl, 8);
        *pos = o + 2 + kl + 8;
        return 1;
}

/* The record being written by rw_rec_frame's visitor. */
struct frame_rec {
        char *buf;
        size_t cap, len;
        int n;
        int err;
};

static void on_point(void *arg, const struct metric_point *p)
{
        struct frame_rec *fr = arg;
        char key[METRICS_KEY_MAX];
        if (fr->err)
                return;
        size_t k = metrics_series_key(key, sizeof(key), p);
        if (!k) {
                fr->err = -E2BIG;
                return;
        }
        /* -0 as the exposition writes it, "0": the push has always sent +0. */
        fr->err = rw_rec_put(fr->buf, fr->cap, &fr->len, key, k, p->v == 0 ? 0.0 : p->v);
        fr->n += !fr->err;
}

int rw_rec_frame(char *buf, size_t cap, size_t *ret_len, const struct frame *f,
                 const struct counters *x)
{
        struct frame_rec fr = {.buf = buf, .cap = cap};
        int r = metrics_visit(f, x, on_point, &fr);
        if (r < 0)
                return r;
        if (fr.err)
                return fr.err;
        if (!fr.len) {
                if (cap < RW_REC_MAGIC_LEN)
                        return -E2BIG;
                memcpy(buf, RW_REC_MAGIC, RW_REC_MAGIC_LEN); /* a frame with no samples */
                fr.len = RW_REC_MAGIC_LEN;
        }
        *ret_len = fr.len;
        return fr.n;
}

int rw_enc_add_record(struct rw_encoder *e, const char *buf, size_t len, int64_t ts_ms)
{
        size_t pos = 0, kl;
        const char *key;
        double v;
        int r;
        while ((r = rw_rec_next(buf, len, &pos, &key, &kl, &v)) == 1) {
                int a = rw_enc_add_sample(e, key, kl, v, ts_ms);
                if (a < 0)
                        return a;
        }
        return r;
}

int rw_enc_add_payload(struct rw_encoder *e, const char *buf, size_t len, int64_t ts_ms)
{
        if (rw_rec_is_samples(buf, len))
                return rw_enc_add_record(e, buf, len, ts_ms);
        return rw_enc_add_text(e, buf, len, ts_ms);
}
