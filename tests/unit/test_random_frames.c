/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the outputs of a few thousand pseudo-random frames, against a golden file.
 * A seeded generator fills every member of the frame (missing values, integers,
 * fractions, large and odd numbers, strings that need escaping) and the real writers
 * turn each frame into the host CSV row (core/host_row.c), each GPU's CSV row
 * (encode/gpu_row.c), the /metrics exposition (metrics/metrics.c, with random counters) and
 * the dashboard's history (core/history.c). Each stream's SHA-256 and length must be
 * tests/golden/random-frames.txt's: a change to how the value tables are written down
 * must leave every output byte-identical.
 *
 * VIGIL_RANDOM_FRAMES_DUMP=DIR writes the streams to DIR/NAME.txt, to diff two builds;
 * VIGIL_RANDOM_FRAMES_WRITE=1 prints the golden lines instead of checking them. */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/counters.h"
#include "core/frame.h"
#include "encode/gpu_row.h"
#include "core/history.h"
#include "core/host_row.h"
#include "encode/host_row_csv.h"
#include "metrics/metrics.h"
#include "util/clock.h"
#include "util/sha256.h"
#include "util/strbuf.h"
#include "test_fixtures.h"
#include "test_rng.h"

#define NFILES          6   /* configurations: cores, watches, GPUs, fans */
#define FRAMES_PER_FILE 500 /* frames written per configuration */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
        return test_rng_next(&rng);
}

static unsigned below(unsigned n)
{
        return (unsigned)(rnd() % n);
}

/* A value as a sample may hold it: missing, 0, a small or large integer, a fraction
 * of a few decimals, one of full precision, an odd one (negative, huge, tiny, inf). */
static double rnd_double(void)
{
        switch (below(14)) {
        case 0:
        case 1:
                return NAN;
        case 2:
                return 0;
        case 3:
                return below(101);
        case 4:
                return (double)(rnd() >> 24);
        case 5:
                return below(100000) / 10.0;
        case 6:
                return below(1000000) / 1000.0;
        case 7:
                return -(double)below(1000) / 4.0;
        case 8:
                return (double)(rnd() >> 11) * 1e3;
        case 9:
                return (double)(rnd() >> 11) / 9007199254740992.0 * 1e-6;
        case 10:
                return below(2) ? INFINITY : -INFINITY;
        default:
                return (double)(rnd() >> 11) / 9007199254740992.0 * 1e4;
        }
}

/* A byte count: as rnd_double, but never +inf (whole MiB of +inf is a conversion C
 * leaves undefined, which compilers answer differently; NVML reports integers). */
static double rnd_bytes(void)
{
        double v = rnd_double();
        return isinf(v) && v > 0 ? NAN : v;
}

static const char *const words[] = {
    "",        "a",         "GeForce RTX 4090", "quote\"d", "back\\slash", "new\nline",
    "comma,x", "pipe|PWR+", "caf\xc3\xa9",      "bad\xff",  "tab\tx",      "x y z",
};
#define NWORDS (sizeof(words) / sizeof(words[0]))

/* A random word into buf[0..cap). */
static void rnd_str(char *buf, size_t cap)
{
        snprintf(buf, cap, "%s", words[below(NWORDS)]);
}

static void fill_host(struct host_frame *h, int64_t t)
{
        h->sampled_real_ns = t;
        h->ncpu = below(10);
        h->cpu_total_pct = rnd_double();
        for (unsigned i = 0; i < VIGIL_MAX_CPUS; i++)
                h->cpu_pct[i] = i < 12 ? rnd_double() : NAN;
        h->load1 = rnd_double();
        h->load5 = rnd_double();
        h->load15 = rnd_double();
        h->mem_total_bytes = rnd_double();
        h->mem_avail_bytes = rnd_double();
        h->mem_used_bytes = rnd_double();
        h->swap_total_bytes = rnd_double();
        h->swap_free_bytes = rnd_double();
        h->shm_total_bytes = rnd_double();
        h->shm_used_bytes = rnd_double();
        h->shm_avail_bytes = rnd_double();
        h->cpu_max_freq_hz = rnd_double();
        h->uptime_s = rnd_double();
        h->nfreq = below(5);
        for (unsigned i = 0; i < VIGIL_MAX_CPUS; i++)
                h->cpu_freq_hz[i] = i < 6 ? rnd_double() : NAN;
        h->ntemps = below(5);
        for (unsigned i = 0; i < h->ntemps; i++) {
                rnd_str(h->temps[i].chip, sizeof(h->temps[i].chip));
                snprintf(h->temps[i].sensor, sizeof(h->temps[i].sensor), "temp%u", i + 1);
                h->temps[i].celsius = rnd_double();
        }
        h->temp_c = rnd_double();
        rnd_str(h->governor, sizeof(h->governor));
}

static void fill_watch(struct watch_frame *w)
{
        w->count = rnd_double();
        w->pss_bytes = rnd_double();
        w->first_pss_bytes = rnd_double();
        w->cpu_pct = rnd_double();
        w->threads = rnd_double();
        w->oldest_age_s = rnd_double();
}

static void fill_rpi(struct rpi_frame *p)
{
        p->present = below(4) != 0;
        p->temp_c = rnd_double();
        p->volt_core_v = rnd_double();
        p->arm_hz = rnd_double();
        p->core_hz = rnd_double();
        p->v3d_hz = rnd_double();
        p->h264_hz = rnd_double();
        p->pixel_hz = rnd_double();
        p->arm_max_hz = rnd_double();
        p->throttled_valid = below(3) != 0;
        p->throttled = below(2) ? rnd() & 0xf000f : (rnd() & 0xffffffffULL);
        p->undervolt_alarm = rnd_double();
        p->temp_src = (enum rpi_origin)below(5);
        p->volt_src = (enum rpi_origin)below(5);
        p->clock_src = (enum rpi_origin)below(5);
        p->throttle_src = (enum rpi_origin)below(5);
        p->arm_max_src = (enum rpi_origin)below(5);
        p->nv3d = below(4);
        for (unsigned i = 0; i < p->nv3d; i++) {
                rnd_str(p->v3d[i].queue, sizeof(p->v3d[i].queue));
                p->v3d[i].busy_ratio = rnd_double();
                p->v3d[i].jobs = rnd_double();
        }
        rnd_str(p->model, sizeof(p->model));
}

static void fill_storage(struct storage_frame *s)
{
        for (unsigned i = 0; i < FS_COUNT; i++) {
                struct fs_frame *fs = &s->fs[i];
                rnd_str(fs->mount, sizeof(fs->mount));
                rnd_str(fs->fstype, sizeof(fs->fstype));
                rnd_str(fs->device, sizeof(fs->device));
                fs->size_bytes = rnd_double();
                fs->avail_bytes = rnd_double();
                fs->readonly = rnd_double();
                fs->full_in_s = rnd_double();
        }
        for (unsigned i = 0; i < STORAGE_KINDS; i++)
                s->errors[i] = rnd_double();
        s->errors_new = rnd_double();
        rnd_str(s->last_error, sizeof(s->last_error));
}

static void fill_gpu(struct gpu_frame *g, unsigned index, int64_t t)
{
        g->present = true;
        g->ok = below(8) != 0;
        if (!g->ok)
                rnd_str(g->error, sizeof(g->error));
        g->sampled = below(4) != 0;
        g->consecutive_failures = below(3);
        g->crash_seq = below(3);
        g->index = index;
        rnd_str(g->name, sizeof(g->name));
        snprintf(g->uuid, sizeof(g->uuid), "GPU-%08x", (unsigned)rnd());
        snprintf(g->pci_bus_id, sizeof(g->pci_bus_id), "00000000:%02X:00.0", index + 1);
        g->sampled_real_ns = t + (int64_t)below(1000000000);
        g->pstate = below(3) ? below(16) : NAN;
        g->temp_c = rnd_double();
        g->temp_max_c = rnd_double();
        g->shutdown_temp_c = rnd_double();
        g->slowdown_temp_c = rnd_double();
        g->power_w = rnd_double();
        g->power_limit_w = rnd_double();
        g->enforced_limit_w = rnd_double();
        g->energy_j = rnd_double();
        g->gpu_clock_mhz = rnd_double();
        g->mem_clock_mhz = rnd_double();
        g->sm_clock_mhz = rnd_double();
        g->video_clock_mhz = rnd_double();
        g->util_gpu_pct = rnd_double();
        g->util_mem_pct = rnd_double();
        g->vram_used_bytes = rnd_bytes();
        g->vram_reserved_bytes = rnd_bytes();
        g->vram_total_bytes = rnd_bytes();
        g->pcie_gen = rnd_double();
        g->pcie_width = rnd_double();
        g->pcie_replay = rnd_double();
        g->ecc_corrected = rnd_double();
        g->ecc_uncorrected = rnd_double();
        g->remapped_correctable = rnd_double();
        g->remapped_uncorrectable = rnd_double();
        g->remap_pending = rnd_double();
        g->remap_failure = rnd_double();
        g->throttle_valid = below(4) != 0;
        g->throttle_mask = below(2) ? rnd() & 0x3ff : rnd();
        g->recovery_valid = below(2) != 0;
        g->recovery_action = below(6);
        for (unsigned i = 0; i < VIGIL_MAX_FANS; i++) {
                g->fan_speed_pct[i] = rnd_double();
                g->fan_target_pct[i] = rnd_double();
        }
        g->s0_temp = rnd_double();
        g->s0_target = rnd_double();
        g->s0_controller = rnd_double();
        if (below(3) == 0)
                snprintf(g->flags, sizeof(g->flags), "%s", below(2) ? "PWR+" : "FAN_SPIKE|PWR+");
}

static void fill_stats(struct gpu_stats *s)
{
        for (unsigned i = 0; i < GPU_ANOM_COUNT; i++)
                s->anomalies[i] = below(4) ? 0 : rnd() >> 40;
        s->samples = rnd() >> 30;
        s->failed_samples = below(100);
        for (unsigned i = 0; i < GPU_THROTTLE_BITS; i++)
                s->throttle_seconds[i] = below(2) ? 0 : below(100000) / 8.0;
        s->peak_temp_c = rnd_double();
        s->peak_power_w = rnd_double();
}

static void fill_procs(struct gpu_proc_list *l)
{
        memset(l, 0, sizeof(*l));
        l->valid = below(2) != 0;
        for (unsigned i = 0; i < GPU_PROC_TYPES; i++) {
                l->supported[i] = below(3) != 0;
                l->count[i] = below(20);
        }
}

static void fill_counters(struct counters *x, unsigned ngpus)
{
        counters_clear(x);
        for (unsigned g = 0; g < ngpus; g++) {
                for (unsigned k = below(6); k > 0; k--)
                        counters_add_xid(x, g, below(4) ? 13 + below(5) : below(200));
                for (unsigned k = below(6); k > 0; k--)
                        counters_add_event(x, g, (enum gpu_event_type)below(GPU_EV_COUNT));
        }
        static const char *const rules[] = {"temp_warn", "shm_full", "mem_low"};
        for (unsigned k = below(4); k > 0; k--) {
                const char *rule = rules[below(3)]; /* in this order, whatever the compiler */
                counters_set_rule(x, rule, below(2) != 0);
        }
        x->snapshots_suppressed = below(5);
        x->event_listener_restarts = below(5);
        x->runs_known = below(2) != 0;
        x->previous_end = (int)below(4);
        for (unsigned i = 0; i < 3; i++)
                x->unclean_ends[i] = below(3);
        x->push.on = below(2) != 0;
        x->push.queue_bytes = rnd() >> 40;
        x->push.queue_samples = rnd() >> 44;
        x->push.oldest_age_s = rnd_double();
        x->push.sent = rnd() >> 20;
        x->push.retried = below(100);
        x->push.dropped_full = below(100);
        x->push.dropped_write = below(100);
        x->push.dropped_reject = below(100);
        x->push.failed = below(100);
        x->push.last_success_s = rnd_double();
        /* The GPU count check and the kernel log's GPU errors: devices of a GPU, one of
         * none (and "" for a GSP timeout, which names no address), some kinds each. */
        x->gpus_known = below(2) != 0;
        x->gpus_expected = below(9);
        x->gpus_answering = below(9);
        x->klog_on = below(2) != 0;
        static const char *const pci[] = {"0000:01:00.0", "0000:41:00.0", "0000:c5:00.0", ""};
        for (unsigned k = below(6); k > 0; k--) {
                unsigned d = below(4);
                int slot = d < 2 && d < ngpus ? (int)d : -1;
                counters_add_klog(x, pci[d], slot, below(COUNTERS_KLOG_KINDS + 1));
        }
        for (unsigned k = 0; k < KLOG_SKIP_COUNT; k++)
                x->klog_skipped[k] = below(3);
}

static void fill_self(struct self_frame *s)
{
        for (unsigned i = 0; i < 4; i++) {
                s->samples[i] = rnd() >> 40;
                s->sample_seconds[i] = below(10000) / 1e6;
        }
        s->missed_deadlines = below(10);
        s->write_errors = below(10);
        s->events_dropped = below(10);
        s->snapshots = below(10);
        s->started_real_ns = 1796235167LL * NSEC_PER_SEC;
        s->started_mono_ns = 1000;
}

/* One output's bytes: hashed, counted, and kept in a file when asked. */
struct stream {
        const char *name;
        struct sha256 h;
        uint64_t bytes;
        FILE *dump;
};

static void stream_open(struct stream *s, const char *name)
{
        s->name = name;
        sha256_init(&s->h);
        s->bytes = 0;
        s->dump = NULL;
        const char *dir = getenv("VIGIL_RANDOM_FRAMES_DUMP");
        if (dir && *dir) {
                char path[PATH_MAX];
                snprintf(path, sizeof(path), "%s/%s.txt", dir, name);
                s->dump = fopen(path, "we");
                assert_non_null(s->dump);
        }
}

static void stream_add(struct stream *s, const struct strbuf *sb)
{
        assert_false(sb->overflow);
        sha256_update(&s->h, sb->buf, sb->len);
        s->bytes += sb->len;
        if (s->dump)
                assert_int_equal(fwrite(sb->buf, 1, sb->len, s->dump), sb->len);
}

/* The golden line "NAME BYTES SHA256". */
static void stream_line(struct stream *s, char *out, size_t cap)
{
        unsigned char d[SHA256_DIGEST_LEN];
        sha256_final(&s->h, d);
        int n = snprintf(out, cap, "%s %llu ", s->name, (unsigned long long)s->bytes);
        for (unsigned i = 0; i < SHA256_DIGEST_LEN && n > 0 && (size_t)n + 3 < cap; i++)
                n += snprintf(out + n, cap - (size_t)n, "%02x", d[i]);
        if (s->dump)
                fclose(s->dump);
}

/* Append a double of the history (NAN, inf and the bits of any other). */
static void put_hist(struct strbuf *sb, double v)
{
        if (isnan(v))
                sb_puts(sb, " nan");
        else
                sb_printf(sb, " %a", v);
}

static void dump_history(struct stream *st, struct strbuf *sb, const struct history *h)
{
        for (size_t i = 0; i < history_count(h); i++) {
                sb_reset(sb);
                sb_printf(sb, "%zu %lld", i, (long long)history_mono_ns(h, i));
                for (unsigned k = 0; k < HH_COUNT; k++)
                        put_hist(sb, history_host(h, i, (enum hist_host)k));
                for (unsigned k = 0; k < HR_COUNT; k++)
                        put_hist(sb, history_rpi(h, i, (enum hist_rpi)k));
                uint32_t w = 0;
                bool ok = history_rpi_throttled(h, i, &w);
                sb_printf(sb, " t%d:%x", ok, ok ? w : 0);
                for (unsigned wi = 0; wi < history_nwatches(h); wi++)
                        for (unsigned k = 0; k < HW_COUNT; k++)
                                put_hist(sb, history_watch(h, i, wi, (enum hist_watch)k));
                for (unsigned g = 0; g < history_ngpus(h); g++) {
                        for (unsigned k = 0; k < HG_COUNT; k++)
                                put_hist(sb, history_gpu(h, i, g, (enum hist_gpu)k));
                        for (unsigned fan = 0; fan < history_nfans(h, g); fan++)
                                put_hist(sb, history_gpu_fan(h, i, g, fan));
                        sb_printf(sb, " m%x f%x", history_gpu_mask(h, i, g),
                                  history_gpu_flags(h, i, g));
                }
                sb_putc(sb, '\n');
                stream_add(st, sb);
        }
}

enum { S_HOST, S_GPU, S_METRICS, S_HISTORY, S_COUNT };

/* Large: kept out of the stack. */
static struct frame f;
static struct counters x;
static struct host_row hr;

static void test_random_frames(void **state)
{
        (void)state;
        static const char *const watch_names[] = {"player", "chromium", "web", "kiosk"};
        struct stream st[S_COUNT];
        stream_open(&st[S_HOST], "host_csv");
        stream_open(&st[S_GPU], "gpu_csv");
        stream_open(&st[S_METRICS], "metrics");
        stream_open(&st[S_HISTORY], "history");
        struct strbuf sb;
        assert_int_equal(sb_init_heap(&sb, 1u << 20, 1u << 24), 0);
        int64_t t = 1796235167LL * NSEC_PER_SEC + 123000000LL;

        for (unsigned file = 0; file < NFILES; file++) {
                unsigned ncpu = below(9);
                unsigned nwatches = below(5);
                unsigned ngpus = below(4);
                unsigned nfans[VIGIL_MAX_GPUS];
                for (unsigned g = 0; g < ngpus; g++)
                        nfans[g] = below(VIGIL_MAX_FANS + 1);
                struct history *h = history_new(NSEC_PER_SEC, 60 * NSEC_PER_SEC, 60);
                assert_non_null(h);
                for (unsigned i = 0; i < FRAMES_PER_FILE; i++) {
                        frame_clear(&f);
                        t += (int64_t)below(2000) * 1000000LL;
                        t += below(1000000);
                        fill_host(&f.host, t);
                        f.nwatches = nwatches;
                        for (unsigned w = 0; w < nwatches; w++) {
                                snprintf(f.watches[w].name, sizeof(f.watches[w].name), "%s",
                                         watch_names[(w + file) % 4]);
                                if (below(6) != 0)
                                        fill_watch(&f.watches[w]);
                        }
                        fill_rpi(&f.rpi);
                        fill_storage(&f.storage);
                        f.ngpus = ngpus;
                        for (unsigned g = 0; g < ngpus; g++) {
                                fill_gpu(&f.gpus[g], g, t);
                                f.gpus[g].nfans = below(4) ? nfans[g] : below(VIGIL_MAX_FANS + 1);
                                fill_stats(&f.gpu_stats[g]);
                                fill_procs(&f.gpu_procs[g]);
                        }
                        fill_self(&f.self);
                        fill_counters(&x, ngpus);

                        host_row_build(&hr, &f);
                        sb_reset(&sb);
                        if (i == 0)
                                host_row_header(&sb, ncpu, &hr);
                        host_row_csv(&sb, &hr, ncpu);
                        stream_add(&st[S_HOST], &sb);

                        for (unsigned g = 0; g < ngpus; g++) {
                                sb_reset(&sb);
                                if (i == 0)
                                        gpu_row_header(&sb, nfans[g]);
                                gpu_row_csv(&sb, &f.gpus[g], nfans[g], NULL);
                                stream_add(&st[S_GPU], &sb);
                        }

                        sb_reset(&sb);
                        assert_int_equal(metrics_render(&sb, &f, &x), 0);
                        stream_add(&st[S_METRICS], &sb);

                        struct tick tk = {.due = VCLOCK_BIT(VCLOCK_HOST) |
                                                 (below(2) ? VCLOCK_BIT(VCLOCK_GPU) : 0),
                                          .mono_ns = (int64_t)(i + 1) * NSEC_PER_SEC,
                                          .real_ns = t};
                        history_push(h, &f, &tk);
                }
                dump_history(&st[S_HISTORY], &sb, h);
                history_free(h);
        }
        sb_free(&sb);

        char got[S_COUNT][160];
        for (unsigned s = 0; s < S_COUNT; s++)
                stream_line(&st[s], got[s], sizeof(got[s]));
        const char *w = getenv("VIGIL_RANDOM_FRAMES_WRITE");
        if (w && *w == '1') {
                for (unsigned s = 0; s < S_COUNT; s++)
                        printf("%s\n", got[s]);
                return;
        }
        char path[PATH_MAX];
        test_repo_path(path, sizeof(path), "tests/golden/random-frames.txt");
        FILE *in = fopen(path, "re");
        if (!in)
                fail_msg("cannot open %s", path);
        char line[256];
        unsigned s = 0;
        while (fgets(line, sizeof(line), in)) {
                if (line[0] == '#' || line[0] == '\n')
                        continue;
                line[strcspn(line, "\n")] = '\0';
                if (s >= S_COUNT)
                        fail_msg("%s: more lines than streams", path);
                if (strcmp(line, got[s]) != 0)
                        fail_msg("%s: want %s, got %s", path, line, got[s]);
                s++;
        }
        fclose(in);
        assert_int_equal(s, S_COUNT);
}

int main(void)
{
        setenv("TZ", "UTC", 1);
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_random_frames),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
