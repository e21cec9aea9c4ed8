/* Source: NVIDIA GPUs through NVML, on the GPU clock (--gpu-interval). One sample
 * reads every field of each selected GPU (nvml_read.c) into frame->gpus[slot]:
 *   gpu0 45 C (max 90), 85.00/600 W, P8, 1200/9000 MHz, 10/5 %, fans 30/30 %, reasons 0x1
 *
 * Failures follow the reference logger's run() loop, per GPU: a sample the GPU does not
 * answer is a failed sample (ok = false, error = NVML's text), never a row of zeros;
 * after a failure the GPU is asked again only after min(5 intervals, 5 s), and after
 * more than 10 failures in a row only every 30 s, while the other GPUs keep their
 * cadence. A failing GPU's handle is re-acquired before each retry; when it answers
 * again its identity, thresholds and fan count are read anew. Messages about failures
 * and recoveries come from the GPU rules (detect/gpu_rules.c), which see the frame. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collect/nvml.h"
#include "collect/nvml_lib.h"
#include "collect/nvml_read.h"
#include "core/vigil.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/parse.h"

#define BACKOFF_AFTER   10                  /* failures before the long back-off */
#define BACKOFF_LONG_NS (30 * NSEC_PER_SEC) /* the reference's 30 s */
#define RETRY_MAX_NS    (5 * NSEC_PER_SEC)  /* min(interval * 5, 5 s) */
#define RETRY_INTERVALS 5

struct nvml_source {
        struct nvml_shared sh;
        struct vigil_ctx *ctx;
};

/* The GPUs --gpu selects, in NVML index order as listed. */
static void select_gpus(struct nvml_shared *sh, const char *list, unsigned count)
{
        sh->ngpus = 0;
        if (!strcmp(list, "all")) {
                for (unsigned i = 0; i < count && sh->ngpus < VIGIL_MAX_GPUS; i++)
                        sh->gpu[sh->ngpus++].index = i;
                if (count > VIGIL_MAX_GPUS)
                        vlog(LOG_WARN, "NVML sees %u GPUs; sampling the first %d", count,
                             VIGIL_MAX_GPUS);
                return;
        }
        struct cursor c = cur_str(list);
        uint64_t idx;
        while (cur_u64(&c, &idx) == 0) {
                bool dup = false;
                for (unsigned k = 0; k < sh->ngpus; k++)
                        dup |= sh->gpu[k].index == idx;
                if (idx >= count)
                        vlog(LOG_WARN, "GPU %llu not present (NVML sees %u): skipped",
                             (unsigned long long)idx, count);
                else if (!dup && sh->ngpus < VIGIL_MAX_GPUS)
                        sh->gpu[sh->ngpus++].index = (unsigned)idx;
                if (!cur_lit(&c, ","))
                        break;
        }
}

static void read_driver_version(struct nvml_shared *sh)
{
        char v[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = "";
        if (sh->lib.driver_version && sh->lib.driver_version(v, sizeof(v)) == NVML_SUCCESS) {
                v[sizeof(v) - 1] = '\0';
                if (strcmp(v, sh->driver_version) != 0) {
                        memcpy(sh->driver_version, v, sizeof(v));
                        sh->driver_gen++;
                }
        }
}

static void publish_identity(const struct nvml_gpu *gpu, struct gpu_frame *g)
{
        g->present = true;
        g->index = gpu->index;
        g->nfans = gpu->nfans;
        memcpy(g->name, gpu->name, sizeof(g->name));
        memcpy(g->uuid, gpu->uuid, sizeof(g->uuid));
        memcpy(g->pci_bus_id, gpu->pci_bus_id, sizeof(g->pci_bus_id));
}

/* Get the handle and the static facts of one GPU. 0 or the NVML code that failed (the
 * handle stays NULL then, so the next try starts over). */
static nvmlReturn_t acquire(struct nvml_shared *sh, struct nvml_gpu *gpu)
{
        nvmlDevice_t h = NULL;
        nvmlReturn_t r = sh->lib.get_handle(gpu->index, &h);
        if (r != NVML_SUCCESS)
                return r;
        gpu->handle = h;
        r = nvml_read_identity(&sh->lib, gpu);
        if (r != NVML_SUCCESS) {
                gpu->handle = NULL;
                return r;
        }
        gpu->handle_gen++;
        return NVML_SUCCESS;
}

static void log_gpu(const struct nvml_shared *sh, const struct nvml_gpu *gpu, nvmlReturn_t r)
{
        unsigned i = gpu->index;
        if (r != NVML_SUCCESS) {
                vlog(LOG_WARN, "gpu%u: not answering at start: %s", i,
                     nvml_lib_strerror(&sh->lib, r));
                return;
        }
        vlog(LOG_INFO, "gpu%u: %s | PCI: %s | UUID: %s", i, gpu->name, gpu->pci_bus_id, gpu->uuid);
        vlog(LOG_INFO, "gpu%u: Driver: %s | Fans: %u | Power limit: %.0fW", i,
             sh->driver_version[0] ? sh->driver_version : "Unknown", gpu->nfans,
             VAL_OK(gpu->power_limit_w) ? gpu->power_limit_w : 0.0);
        vlog(LOG_INFO, "gpu%u: Thresholds: shutdown=%.0fC slowdown=%.0fC gpu_max=%.0fC", i,
             gpu->shutdown_c, gpu->slowdown_c, gpu->gpu_max_c);
}

/* nvmlInit and the GPU list; one line and -ENODEV when there is nothing to sample. */
static int start_nvml(struct nvml_source *s, const struct vigil_options *o, enum log_level lvl)
{
        struct nvml_shared *sh = &s->sh;
        nvmlReturn_t r = sh->lib.init();
        if (r != NVML_SUCCESS) {
                vlog(lvl, "NVML: %s: GPU sampling off", nvml_lib_strerror(&sh->lib, r));
                return -ENODEV;
        }
        unsigned count = 0;
        r = sh->lib.get_count(&count);
        if (r != NVML_SUCCESS || count == 0) {
                vlog(lvl, "NVML: %s: GPU sampling off",
                     r ? nvml_lib_strerror(&sh->lib, r) : "no GPUs found");
                sh->lib.shutdown();
                return -ENODEV;
        }
        sh->device_count = count;
        select_gpus(sh, o->gpu_list, count);
        if (sh->ngpus == 0) {
                vlog(LOG_WARN, "NVML: no GPU of --gpu %s among %u: GPU sampling off", o->gpu_list,
                     count);
                sh->lib.shutdown();
                return -ENODEV;
        }
        return 0;
}

static int nvml_init(struct vigil_ctx *ctx, void **ret_state)
{
        const struct vigil_options *o = ctx->opt;
        char err[400];
        if (!strcmp(o->gpu_list, "none"))
                return -ENODEV;
        /* Silence is normal on a machine without NVIDIA; not when GPUs were asked for. */
        enum log_level lvl = strcmp(o->gpu_list, "all") || o->nvml_path[0] ? LOG_WARN : LOG_INFO;
        struct nvml_source *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        int r = nvml_lib_open(&s->sh.lib, o->nvml_path, err, sizeof(err));
        if (r < 0) {
                vlog(lvl, "%s: GPU sampling off", err);
                free(s);
                return -ENODEV;
        }
        if (start_nvml(s, o, lvl) < 0) {
                /* Not dlclose'd once nvmlInit ran: see nvml_fini. */
                free(s);
                return -ENODEV;
        }
        read_driver_version(&s->sh);
        ctx->frame->ngpus = s->sh.ngpus;
        for (unsigned i = 0; i < s->sh.ngpus; i++) {
                struct nvml_gpu *gpu = &s->sh.gpu[i];
                nvmlReturn_t nr = acquire(&s->sh, gpu);
                log_gpu(&s->sh, gpu, nr);
                publish_identity(gpu, &ctx->frame->gpus[i]);
        }
        s->ctx = ctx;
        ctx->nvml = &s->sh;
        *ret_state = s;
        return 0;
}

static void on_failure(struct nvml_source *s, struct nvml_gpu *gpu, struct gpu_frame *g,
                       nvmlReturn_t err, const struct tick *t)
{
        int64_t iv = s->ctx->opt->gpu_interval_ns;
        int64_t wait = iv * RETRY_INTERVALS < RETRY_MAX_NS ? iv * RETRY_INTERVALS : RETRY_MAX_NS;
        gpu->consecutive_failures++;
        gpu->failed_samples++;
        if (gpu->consecutive_failures == 1)
                gpu->crash_seq++;
        if (gpu->consecutive_failures > BACKOFF_AFTER)
                wait = BACKOFF_LONG_NS;
        /* Half an interval early, so a tick that is a little less late still counts. */
        gpu->next_try_mono_ns = t->mono_ns + wait - iv / 2;
        g->ok = false;
        const char *e = nvml_lib_strerror(&s->sh.lib, err);
        copy_bounded(g->error, sizeof(g->error), e, strlen(e));
}

static void on_success(struct nvml_source *s, struct nvml_gpu *gpu, struct gpu_frame *g)
{
        g->ok = true;
        if (gpu->consecutive_failures > 0) {
                /* Answering again: it may have been reset; read what it is now. */
                gpu->handle_gen++;
                nvml_read_identity(&s->sh.lib, gpu);
                read_driver_version(&s->sh);
                publish_identity(gpu, g);
        }
        gpu->consecutive_failures = 0;
        gpu->next_try_mono_ns = 0;
}

/* A failing GPU gets a fresh handle before it is asked again. */
static nvmlReturn_t reacquire(struct nvml_shared *sh, struct nvml_gpu *gpu)
{
        nvmlDevice_t h = NULL;
        nvmlReturn_t r = sh->lib.get_handle(gpu->index, &h);
        if (r == NVML_SUCCESS)
                gpu->handle = h;
        return r;
}

static bool sample_one(struct nvml_source *s, unsigned slot, const struct tick *t)
{
        struct nvml_gpu *gpu = &s->sh.gpu[slot];
        struct gpu_frame *g = &s->ctx->frame->gpus[slot];
        struct nvml_read_result res;
        nvmlReturn_t err = NVML_SUCCESS;
        gpu_frame_clear(g);
        g->sampled = true;
        g->sampled_real_ns = t->real_ns;
        if (!gpu->handle) { /* not answering at start: identify it once it does */
                err = acquire(&s->sh, gpu);
                if (err == NVML_SUCCESS)
                        publish_identity(gpu, g);
        } else if (gpu->consecutive_failures > 0) {
                err = reacquire(&s->sh, gpu);
        }
        if (err == NVML_SUCCESS) {
                nvml_read_sample(&s->sh.lib, gpu, g, &res);
                nvml_read_failed(&res, &err);
        }
        if (err != NVML_SUCCESS)
                on_failure(s, gpu, g, err, t);
        else
                on_success(s, gpu, g);
        g->consecutive_failures = gpu->consecutive_failures;
        g->crash_seq = gpu->crash_seq;
        return err == NVML_SUCCESS;
}

static int nvml_sample(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct nvml_source *s = state;
        bool all_ok = true;
        for (unsigned slot = 0; slot < s->sh.ngpus; slot++) {
                struct gpu_frame *g = &ctx->frame->gpus[slot];
                g->sampled = false;
                if (t->mono_ns < s->sh.gpu[slot].next_try_mono_ns)
                        continue;
                all_ok &= sample_one(s, slot, t);
        }
        return all_ok ? 0 : -EIO;
}

static void nvml_fini(void *state)
{
        struct nvml_source *s = state;
        if (!s)
                return;
        if (s->ctx && s->ctx->nvml == &s->sh)
                s->ctx->nvml = NULL;
        s->sh.lib.shutdown();
        /* The library stays mapped until exit: a driver keeps state (and threads) past
         * nvmlShutdown, which unloading would cut off. */
        free(s);
}

const struct vigil_source source_nvml = {
    .name = "nvml",
    .clocks = VCLOCK_BIT(VCLOCK_GPU),
    .init = nvml_init,
    .sample = nvml_sample,
    .fini = nvml_fini,
};
