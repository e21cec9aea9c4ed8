/* SPDX-License-Identifier: Apache-2.0 */
/* Frame clearing: every value to missing. See frame.h. */
#include "core/frame.h"

#include <stddef.h>
#include <string.h>

#include "core/frame_fields.h"
#include "util/hot.h"

VIGIL_HOT void host_frame_clear(struct host_frame *h)
{
        fields_clear(h, sizeof(*h), host_fields, host_fields_count);
}

void watch_frame_clear(struct watch_frame *w)
{
        /* The name survives: it is the watch's, not a sample value. */
        fields_clear(w, sizeof(*w), watch_fields, watch_fields_count);
}

VIGIL_HOT void rpi_frame_clear(struct rpi_frame *r)
{
        fields_clear(r, sizeof(*r), rpi_fields, rpi_fields_count);
}

VIGIL_HOT void gpu_frame_copy_identity(struct gpu_frame *dst, const struct gpu_frame *src)
{
        fields_copy_kept(dst, src, gpu_fields, gpu_fields_count);
}

VIGIL_HOT void gpu_frame_clear(struct gpu_frame *g)
{
        /* Identity (index, name, uuid, bus id, fan count) survives: not a sample value. */
        fields_clear(g, sizeof(*g), gpu_fields, gpu_fields_count);
}

VIGIL_HOT void storage_frame_clear(struct storage_frame *s)
{
        fields_clear(s, sizeof(*s), storage_fields, storage_fields_count);
}

void display_frame_clear(struct display_frame *d)
{
        fields_clear(d, sizeof(*d), display_fields, display_fields_count);
}

VIGIL_HOT void net_frame_clear(struct net_frame *n)
{
        fields_clear(n, sizeof(*n), net_fields, net_fields_count);
}

/* frame_copy_live: the GPU arrays lie together, self and gpu_procs_gen after them,
 * gpu_procs last. */
_Static_assert(offsetof(struct frame, gpu_stats) ==
                   offsetof(struct frame, gpus) + sizeof(((struct frame *)0)->gpus),
               "gpu_stats right after gpus");
_Static_assert(offsetof(struct frame, self) ==
                   offsetof(struct frame, gpu_stats) + sizeof(((struct frame *)0)->gpu_stats),
               "self right after gpu_stats");
_Static_assert(offsetof(struct frame, gpu_procs) + sizeof(((struct frame *)0)->gpu_procs) ==
                   sizeof(struct frame),
               "gpu_procs last");

/* Slots [from, to) of the array at off (elem bytes each) of dst: src's, or zero. */
static void copy_slots(struct frame *dst, const struct frame *src, size_t off, size_t elem,
                       unsigned n, unsigned old)
{
        memcpy((char *)dst + off, (const char *)src + off, n * elem);
        if (old > n)
                memset((char *)dst + off + n * elem, 0, (old - n) * elem);
}

static unsigned cap_gpus(unsigned n)
{
        return n < VIGIL_MAX_GPUS ? n : VIGIL_MAX_GPUS;
}

void frame_copy_live(struct frame *dst, const struct frame *src, bool procs)
{
        unsigned n = cap_gpus(src->ngpus), old = cap_gpus(dst->ngpus);
        memcpy(dst, src, offsetof(struct frame, gpus));
        copy_slots(dst, src, offsetof(struct frame, gpus), sizeof(src->gpus[0]), n, old);
        copy_slots(dst, src, offsetof(struct frame, gpu_stats), sizeof(src->gpu_stats[0]), n, old);
        memcpy(&dst->self, &src->self,
               offsetof(struct frame, gpu_procs) - offsetof(struct frame, self));
        if (procs)
                copy_slots(dst, src, offsetof(struct frame, gpu_procs), sizeof(src->gpu_procs[0]),
                           n, old);
}

void frame_empty(struct frame *f)
{
        unsigned old = cap_gpus(f->ngpus);
        memset(f, 0, offsetof(struct frame, gpus));
        memset(f->gpus, 0, old * sizeof(f->gpus[0]));
        memset(f->gpu_stats, 0, old * sizeof(f->gpu_stats[0]));
        memset(&f->self, 0, offsetof(struct frame, gpu_procs) - offsetof(struct frame, self));
        memset(f->gpu_procs, 0, old * sizeof(f->gpu_procs[0]));
        frame_init(f);
}

void frame_init(struct frame *f)
{
        host_frame_clear(&f->host);
        storage_frame_clear(&f->storage);
        rpi_frame_clear(&f->rpi);
        display_frame_clear(&f->display);
        net_frame_clear(&f->net);
        for (unsigned i = 0; i < VIGIL_MAX_WATCHES; i++)
                watch_frame_clear(&f->watches[i]);
}

void frame_clear(struct frame *f)
{
        memset(f, 0, sizeof(*f));
        host_frame_clear(&f->host);
        storage_frame_clear(&f->storage);
        rpi_frame_clear(&f->rpi);
        display_frame_clear(&f->display);
        net_frame_clear(&f->net);
        for (unsigned i = 0; i < VIGIL_MAX_WATCHES; i++)
                watch_frame_clear(&f->watches[i]);
        for (unsigned i = 0; i < VIGIL_MAX_GPUS; i++)
                gpu_frame_clear(&f->gpus[i]);
}
