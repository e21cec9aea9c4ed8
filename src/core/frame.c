/* Frame clearing: every value to missing. See frame.h. */
#include "core/frame.h"

#include <string.h>

#include "core/gpu_fields.h"

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
        r->arm_max_hz = r->undervolt_alarm = VAL_MISSING;
        r->throttled = 0;
        r->throttled_valid = false;
        for (unsigned i = 0; i < VIGIL_V3D_QUEUES; i++)
                r->v3d[i].busy_ratio = r->v3d[i].jobs = VAL_MISSING;
}

void gpu_frame_copy_identity(struct gpu_frame *dst, const struct gpu_frame *src)
{
        fields_copy_kept(dst, src, gpu_fields, gpu_fields_count);
}

void gpu_frame_clear(struct gpu_frame *g)
{
        /* Identity (index, name, uuid, bus id, fan count) survives: not a sample value. */
        fields_clear(g, sizeof(*g), gpu_fields, gpu_fields_count);
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
