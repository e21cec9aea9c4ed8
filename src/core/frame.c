/* Frame clearing: every value to missing. See frame.h. */
#include "core/frame.h"

#include <string.h>

static void set_missing(double *v, unsigned n)
{
        for (unsigned i = 0; i < n; i++)
                v[i] = VAL_MISSING;
}

#define MISSING_ARRAY(a) set_missing((a), sizeof(a) / sizeof((a)[0]))

void host_frame_clear(struct host_frame *h)
{
        memset(h, 0, sizeof(*h));
        h->cpu_total_pct = h->load1 = h->load5 = h->load15 = VAL_MISSING;
        h->uptime_s = h->mem_total_bytes = h->mem_avail_bytes = h->mem_used_bytes = VAL_MISSING;
        h->swap_total_bytes = h->swap_free_bytes = VAL_MISSING;
        h->shm_total_bytes = h->shm_used_bytes = h->shm_avail_bytes = VAL_MISSING;
        h->temp_c = h->cpu_max_freq_hz = VAL_MISSING;
        MISSING_ARRAY(h->cpu_pct);
        MISSING_ARRAY(h->cpu_freq_hz);
}

void watch_frame_clear(struct watch_frame *w)
{
        char name[sizeof(w->name)];
        memcpy(name, w->name, sizeof(name));
        memset(w, 0, sizeof(*w));
        memcpy(w->name, name, sizeof(name));
        w->count = w->pss_bytes = w->cpu_pct = w->threads = VAL_MISSING;
        w->oldest_age_s = w->first_pss_bytes = VAL_MISSING;
}

void rpi_frame_clear(struct rpi_frame *r)
{
        memset(r, 0, sizeof(*r));
        r->temp_c = r->volt_core_v = VAL_MISSING;
        r->arm_hz = r->core_hz = r->v3d_hz = r->h264_hz = r->pixel_hz = VAL_MISSING;
        r->arm_max_hz = r->throttled = r->undervolt_alarm = VAL_MISSING;
        for (unsigned i = 0; i < VIGIL_V3D_QUEUES; i++)
                r->v3d[i].busy_ratio = r->v3d[i].jobs = VAL_MISSING;
}

void gpu_frame_copy_identity(struct gpu_frame *dst, const struct gpu_frame *src)
{
        dst->present = src->present;
        dst->index = src->index;
        dst->nfans = src->nfans;
        memcpy(dst->name, src->name, sizeof(dst->name));
        memcpy(dst->uuid, src->uuid, sizeof(dst->uuid));
        memcpy(dst->pci_bus_id, src->pci_bus_id, sizeof(dst->pci_bus_id));
}

void gpu_frame_clear(struct gpu_frame *g)
{
        /* Identity (index, name, uuid, bus id) survives: it is not a sample value. */
        unsigned index = g->index;
        bool present = g->present;
        char name[sizeof(g->name)], uuid[sizeof(g->uuid)], bus[sizeof(g->pci_bus_id)];
        memcpy(name, g->name, sizeof(name));
        memcpy(uuid, g->uuid, sizeof(uuid));
        memcpy(bus, g->pci_bus_id, sizeof(bus));
        unsigned nfans = g->nfans;
        memset(g, 0, sizeof(*g));
        g->index = index;
        g->present = present;
        g->nfans = nfans;
        memcpy(g->name, name, sizeof(name));
        memcpy(g->uuid, uuid, sizeof(uuid));
        memcpy(g->pci_bus_id, bus, sizeof(bus));
        g->temp_c = g->temp_max_c = g->power_w = g->power_limit_w = VAL_MISSING;
        g->enforced_limit_w = g->energy_j = g->pstate = VAL_MISSING;
        g->gpu_clock_mhz = g->mem_clock_mhz = g->sm_clock_mhz = g->video_clock_mhz = VAL_MISSING;
        g->util_gpu_pct = g->util_mem_pct = g->vram_used_bytes = g->vram_total_bytes = VAL_MISSING;
        g->pcie_gen = g->pcie_width = g->pcie_replay = g->throttle_mask = VAL_MISSING;
        g->s0_temp = g->s0_target = g->s0_controller = VAL_MISSING;
        g->ecc_corrected = g->ecc_uncorrected = VAL_MISSING;
        g->remapped_correctable = g->remapped_uncorrectable = VAL_MISSING;
        g->remap_pending = g->remap_failure = VAL_MISSING;
        MISSING_ARRAY(g->fan_speed_pct);
        MISSING_ARRAY(g->fan_target_pct);
}

void storage_frame_clear(struct storage_frame *s)
{
        memset(s, 0, sizeof(*s));
        for (unsigned i = 0; i < FS_COUNT; i++) {
                struct fs_frame *fs = &s->fs[i];
                fs->size_bytes = fs->avail_bytes = fs->readonly = fs->full_in_s = VAL_MISSING;
        }
        MISSING_ARRAY(s->errors);
        s->errors_new = VAL_MISSING;
}

void frame_clear(struct frame *f)
{
        memset(f, 0, sizeof(*f));
        host_frame_clear(&f->host);
        storage_frame_clear(&f->storage);
        rpi_frame_clear(&f->rpi);
        for (unsigned i = 0; i < VIGIL_MAX_WATCHES; i++)
                watch_frame_clear(&f->watches[i]);
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++)
                gpu_frame_clear(&f->gpus[i]);
}
