/* SPDX-License-Identifier: Apache-2.0 */
/* Benchmark: the remote-write push's per-frame work, from the frame to the encoder,
 * two ways. text: what the push did before sample records (the /metrics text rendered,
 * then parsed back line by line into the encoder: rw_enc_add_text, still the reader of
 * queues an older vigil wrote). record: the renderer's samples written as a sample
 * record (rw_rec_frame), then read into the encoder (rw_enc_add_record). Both end with
 * the same WriteRequest (test_rw_samples checks that); snappy, the queue and the
 * staleness markers, the same work either way, are left out. A server-sized frame:
 * 8 GPUs with every value, 64 CPUs, sensors, watches, counters. Rounds alternate so
 * machine noise hits both; the ratio is the median of the per-round ratios.
 *
 * usage: bench_rw_record [ROUNDS [FRAMES_PER_ROUND]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/counters.h"
#include "core/frame.h"
#include "core/frame_fields.h"
#include "core/fields.h"
#include "core/metric_defs.h"
#include "metrics/metrics.h"
#include "push/rw_proto.h"
#include "push/rw_record.h"
#include "util/clock.h"
#include "util/strbuf.h"

#define REC_CAP (8u << 20)

static struct frame f;
static struct counters x;

/* Every /metrics series of obj (a struct of the area of t[0..n)) the value v. */
static void fill_table(void *obj, const struct field_desc *t, size_t n, double v)
{
        for (size_t i = 0; i < n; i++)
                if (t[i].metric.row == MR_SERIES)
                        memcpy((char *)obj + t[i].off, &v, sizeof(v));
}

static void fill(void)
{
        frame_clear(&f);
        counters_clear(&x);
        fill_table(&f.host, host_fields, host_fields_count, 123456789.0);
        f.host.ncpu = 64;
        f.host.cpu_total_pct = 12.5;
        for (unsigned i = 0; i < 64; i++)
                f.host.cpu_pct[i] = i * 1.37;
        f.host.ntemps = 6;
        for (unsigned i = 0; i < 6; i++) {
                snprintf(f.host.temps[i].chip, sizeof(f.host.temps[i].chip), "coretemp");
                snprintf(f.host.temps[i].sensor, sizeof(f.host.temps[i].sensor), "Core %u", i);
                f.host.temps[i].celsius = 41 + i;
        }
        f.nwatches = 2;
        for (unsigned w = 0; w < 2; w++) {
                snprintf(f.watches[w].name, sizeof(f.watches[w].name), w ? "python" : "nginx");
                fill_table(&f.watches[w], watch_fields, watch_fields_count, 3.25);
        }
        f.ngpus = 8;
        for (unsigned g = 0; g < 8; g++) {
                struct gpu_frame *gf = &f.gpus[g];
                gf->present = gf->ok = true;
                gf->index = g;
                snprintf(gf->name, sizeof(gf->name), "NVIDIA H100 80GB HBM3");
                snprintf(gf->uuid, sizeof(gf->uuid), "GPU-5d6c8a1e-%04u-4c2b-9b1e-0c7f3a5e9d21", g);
                snprintf(gf->pci_bus_id, sizeof(gf->pci_bus_id), "00000000:%02X:00.0", g + 0x18);
                for (size_t i = 0; i < gpu_fields_count; i++)
                        if (gpu_fields[i].metric.row == MR_SERIES) {
                                double v = 231.5 + (double)i;
                                memcpy((char *)gf + gpu_fields[i].off, &v, sizeof(v));
                        }
                gf->throttle_valid = true;
                gf->pstate = 0;
                counters_add_xid(&x, g, 79);
        }
        x.push.on = true;
}

static int cmp_double(const void *a, const void *b)
{
        double p = *(const double *)a, q = *(const double *)b;
        return (p > q) - (p < q);
}

int main(int argc, char **argv)
{
        unsigned rounds = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 15;
        unsigned frames = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 200;
        struct strbuf sb;
        char *rec = malloc(REC_CAP);
        double *ratio = calloc(rounds ? rounds : 1, sizeof(double));
        double t_text = 0, t_rec = 0;
        size_t text_len = 0, rec_len = 0, nsamples = 0;
        if (!rec || !ratio || sb_init_heap(&sb, 1u << 20, 1u << 24) < 0)
                return 1;
        fill();
        for (unsigned r = 0; r < rounds; r++) {
                struct rw_encoder e;
                int64_t t0 = now_mono_ns();
                for (unsigned i = 0; i < frames; i++) {
                        sb_reset(&sb);
                        if (metrics_render(&sb, &f, &x) < 0 || rw_enc_init(&e, NULL, 0) < 0 ||
                            rw_enc_add_text(&e, sb.buf, sb.len, 1000 + i) < 0)
                                return 1;
                        nsamples = e.nsamples;
                        rw_enc_free(&e);
                }
                int64_t t1 = now_mono_ns();
                for (unsigned i = 0; i < frames; i++) {
                        size_t len = 0;
                        if (rw_rec_frame(rec, REC_CAP, &len, &f, &x) < 0 ||
                            rw_enc_init(&e, NULL, 0) < 0 ||
                            rw_enc_add_record(&e, rec, len, 1000 + i) < 0)
                                return 1;
                        rec_len = len;
                        rw_enc_free(&e);
                }
                int64_t t2 = now_mono_ns();
                text_len = sb.len;
                t_text += (double)(t1 - t0);
                t_rec += (double)(t2 - t1);
                ratio[r] = (double)(t1 - t0) / (double)(t2 - t1);
        }
        qsort(ratio, rounds, sizeof(double), cmp_double);
        double n = (double)rounds * frames;
        printf("frame of %zu samples (8 GPUs, 64 CPUs), %u rounds of %u frames\n", nsamples, rounds,
               frames);
        printf("text (render, parse back): %.1f us per frame; exposition %zu bytes\n",
               t_text / n / 1e3, text_len);
        printf("record (visit, read):      %.1f us per frame; record %zu bytes\n", t_rec / n / 1e3,
               rec_len);
        printf("ratio text/record: %.2fx (median of rounds)\n", ratio[rounds / 2]);
        sb_free(&sb);
        free(rec);
        free(ratio);
        return 0;
}
