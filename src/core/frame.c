/* Frame clearing: every value to missing. See frame.h. */
#include "core/frame.h"

#include <stddef.h>
#include <string.h>

#include "core/frame_fields.h"

void host_frame_clear(struct host_frame *h)
{
        fields_clear(h, sizeof(*h), host_fields, host_fields_count);
}

void watch_frame_clear(struct watch_frame *w)
{
        /* The name survives: it is the watch's, not a sample value. */
        fields_clear(w, sizeof(*w), watch_fields, watch_fields_count);
}

void rpi_frame_clear(struct rpi_frame *r)
{
        fields_clear(r, sizeof(*r), rpi_fields, rpi_fields_count);
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
        fields_clear(s, sizeof(*s), storage_fields, storage_fields_count);
}

/* frame_copy_published skips only the GPU slots: nothing lies between them and self. */
_Static_assert(offsetof(struct frame, gpu_stats) ==
                   offsetof(struct frame, gpus) + sizeof(((struct frame *)0)->gpus),
               "gpu_stats right after gpus");
_Static_assert(offsetof(struct frame, self) ==
                   offsetof(struct frame, gpu_stats) + sizeof(((struct frame *)0)->gpu_stats),
               "self right after gpu_stats");

void frame_copy_published(struct frame *dst, const struct frame *src, bool full)
{
        unsigned n = src->ngpus < VIGIL_MAX_GPUS ? src->ngpus : VIGIL_MAX_GPUS;
        if (full || n == VIGIL_MAX_GPUS) {
                memcpy(dst, src, FRAME_PUBLISH_BYTES);
                return;
        }
        memcpy(dst, src, offsetof(struct frame, gpus));
        memcpy(dst->gpus, src->gpus, n * sizeof(src->gpus[0]));
        memcpy(dst->gpu_stats, src->gpu_stats, n * sizeof(src->gpu_stats[0]));
        memcpy(&dst->self, &src->self, FRAME_PUBLISH_BYTES - offsetof(struct frame, self));
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
