/* SPDX-License-Identifier: Apache-2.0 */
/* The dashboard's ring of recent records and markers. See history.h.
 *
 * A record is an array of 4-byte slots (float values, uint32 words):
 *   host: HH_*      Pi: HR_*      record flags
 *   then HW_COUNT per watch: HW_*
 *   then per GPU: HG_*, HIST_GPU_* flags, one slot per fan
 * The HH_, HR_, HW_ and HG_ slots are folded by their tables (the hist slots of
 * core/host_values.c, rpi_values.c, watch_values.c and gpu_values.c). A bit
 * word's slot (reduce "or") means something only once a word was read in the period,
 * which a bit of the flags slot says: the record flags' bit 1 << (its HH_ or HR_ slot
 * number) for the host's and the Pi's, the GPU flags' bit 1 << (GPU_WORD_SHIFT + its
 * HG_ id) for a GPU's. */
#include "core/history.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/frame_fields.h"
#include "util/hot.h"

#define SL_HOST   0
#define SL_RPI    (SL_HOST + HH_COUNT)
#define SL_FLAGS  (SL_RPI + HR_COUNT)
#define SL_WATCH  (SL_FLAGS + 1)
#define GPU_FLAGS HG_COUNT
#define GPU_FANS  (HG_COUNT + 1)

/* The GPU flags' bits past history_gpu_flags()'s: a word of the GPU was read. */
#define GPU_WORD_SHIFT 8
#define GPU_PUBLIC     ((1u << GPU_WORD_SHIFT) - 1)
_Static_assert(SL_FLAGS <= 32, "a read bit per host and Pi slot");
_Static_assert(GPU_WORD_SHIFT + HG_COUNT <= 32, "a read bit per GPU slot");

union hist_slot {
        float f;
        uint32_t u;
};

/* One kept value: the offset of its member in the area's struct (a double; for
 * HIST_or a uint64_t word, valid when the bool at valid_off is true), its reduction. */
struct hist_series {
        size_t off;
        enum hist_reduce reduce;
        size_t valid_off;
};

/* Each area's kept values, from the hist slots of its table (core/host_values.c,
 * rpi_values.c, watch_values.c, gpu_values.c), at their ids; built once. */
static struct hist_series host_series[HH_COUNT], rpi_series[HR_COUNT], watch_series[HW_COUNT];
static struct hist_series gpu_series[HG_COUNT];
static pthread_once_t series_once = PTHREAD_ONCE_INIT;

static void build_area(struct hist_series *out, unsigned n, const struct field_desc *t, size_t nt)
{
        for (size_t i = 0; i < nt; i++) {
                const struct field_desc *d = &t[i];
                if (d->hist.reduce != HIST_none && d->hist.id < n)
                        out[d->hist.id] = (struct hist_series){
                            .off = d->off, .reduce = d->hist.reduce, .valid_off = d->valid_off};
        }
}

static void build_series(void)
{
        build_area(host_series, HH_COUNT, host_fields, host_fields_count);
        build_area(rpi_series, HR_COUNT, rpi_fields, rpi_fields_count);
        build_area(watch_series, HW_COUNT, watch_fields, watch_fields_count);
        build_area(gpu_series, HG_COUNT, gpu_fields, gpu_fields_count);
}

struct hist_layout {
        unsigned nwatches, ngpus;
        unsigned nfans[VIGIL_MAX_GPUS];
        unsigned gpu_off[VIGIL_MAX_GPUS]; /* first slot of each GPU */
        unsigned stride;                  /* slots per record */
};

struct hist_marker {
        int64_t mono_ns;
        char text[HISTORY_MARKER_LEN];
};

/* A GPU's enforced power limit from mono_ns on. */
struct hist_step {
        int64_t mono_ns;
        float w;
};

/* The last HISTORY_LIMIT_STEPS changes of one GPU's enforced limit, a ring. */
struct hist_steps {
        struct hist_step s[HISTORY_LIMIT_STEPS];
        unsigned head, n;
};

struct history {
        pthread_mutex_t lock;
        int64_t period_ns;
        unsigned every; /* host ticks per record */
        size_t cap;     /* records */
        /* The ring, changed under lock. */
        struct hist_layout lay;
        union hist_slot *slots; /* cap * lay.stride */
        int64_t *mono;          /* cap */
        size_t slots_alloc;     /* slots allocated (copies reuse a larger ring) */
        size_t mono_alloc;      /* times allocated */
        size_t head, n;         /* next record written; records stored */
        bool have_anchor;
        int64_t anchor_mono, anchor_real;
        struct hist_marker markers[HISTORY_MAX_MARKERS];
        size_t mhead, mn;
        struct hist_steps limit[VIGIL_MAX_GPUS]; /* the enforced limits, by GPU slot */
        /* The record being built: main thread only. */
        union hist_slot *acc;
        unsigned acc_ticks, acc_gpu_samples;
};

struct history *history_new(int64_t interval_ns, int64_t span_ns, unsigned max_records)
{
        pthread_once(&series_once, build_series);
        if (interval_ns <= 0 || span_ns <= 0 || max_records == 0)
                return NULL;
        struct history *h = calloc(1, sizeof(*h));
        if (!h)
                return NULL;
        pthread_mutex_init(&h->lock, NULL);
        int64_t min_period = (span_ns + max_records - 1) / max_records;
        int64_t every = (min_period + interval_ns - 1) / interval_ns;
        h->every = every < 1 ? 1 : every > 1000000 ? 1000000 : (unsigned)every;
        h->period_ns = interval_ns * h->every;
        int64_t cap = (span_ns + h->period_ns - 1) / h->period_ns;
        h->cap = cap < 1 ? 1 : cap > max_records ? max_records : (size_t)cap;
        return h;
}

void history_free(struct history *h)
{
        if (!h)
                return;
        pthread_mutex_destroy(&h->lock);
        free(h->slots);
        free(h->mono);
        free(h->acc);
        free(h);
}

/* ---- layout ---- */

static unsigned cap_u(unsigned v, unsigned max)
{
        return v > max ? max : v;
}

/* The layout frame f needs, at least as large as cur. */
static void layout_for(const struct hist_layout *cur, const struct frame *f,
                       struct hist_layout *out)
{
        *out = *cur;
        unsigned nw = cap_u(f->nwatches, VIGIL_MAX_WATCHES);
        unsigned ng = cap_u(f->ngpus, VIGIL_MAX_GPUS);
        if (nw > out->nwatches)
                out->nwatches = nw;
        if (ng > out->ngpus)
                out->ngpus = ng;
        for (unsigned g = 0; g < ng; g++) {
                unsigned nf = cap_u(f->gpus[g].nfans, VIGIL_MAX_FANS);
                if (nf > out->nfans[g])
                        out->nfans[g] = nf;
        }
        unsigned off = SL_WATCH + HW_COUNT * out->nwatches;
        for (unsigned g = 0; g < out->ngpus; g++) {
                out->gpu_off[g] = off;
                off += GPU_FANS + out->nfans[g];
        }
        out->stride = off;
}

static bool layout_grew(const struct hist_layout *cur, const struct frame *f)
{
        if (f->nwatches > cur->nwatches && cur->nwatches < VIGIL_MAX_WATCHES)
                return true;
        if (f->ngpus > cur->ngpus && cur->ngpus < VIGIL_MAX_GPUS)
                return true;
        for (unsigned g = 0; g < cur->ngpus && g < f->ngpus; g++)
                if (f->gpus[g].nfans > cur->nfans[g] && cur->nfans[g] < VIGIL_MAX_FANS)
                        return true;
        return false;
}

static void acc_reset(struct history *h)
{
        const struct hist_layout *l = &h->lay;
        for (unsigned i = 0; i < l->stride; i++)
                h->acc[i].f = NAN;
        h->acc[SL_FLAGS].u = 0;
        for (unsigned g = 0; g < l->ngpus; g++)
                h->acc[l->gpu_off[g] + GPU_FLAGS].u = 0;
        h->acc_ticks = 0;
        h->acc_gpu_samples = 0;
}

/* A new ring for f's layout; the records stored so far are dropped. */
static int relayout(struct history *h, const struct frame *f)
{
        struct hist_layout nl;
        layout_for(&h->lay, f, &nl);
        union hist_slot *slots = calloc(h->cap * nl.stride, sizeof(*slots));
        union hist_slot *acc = calloc(nl.stride, sizeof(*acc));
        int64_t *mono = calloc(h->cap, sizeof(*mono));
        if (!slots || !acc || !mono) {
                free(slots);
                free(acc);
                free(mono);
                return -ENOMEM;
        }
        pthread_mutex_lock(&h->lock);
        union hist_slot *old_slots = h->slots;
        int64_t *old_mono = h->mono;
        h->lay = nl;
        h->slots = slots;
        h->slots_alloc = h->cap * nl.stride;
        h->mono = mono;
        h->mono_alloc = h->cap;
        h->head = h->n = 0;
        pthread_mutex_unlock(&h->lock);
        free(old_slots);
        free(old_mono);
        free(h->acc);
        h->acc = acc;
        acc_reset(h);
        return 0;
}

/* ---- folding ---- */

static void put_max(union hist_slot *s, double v)
{
        if (!VAL_OK(v))
                return;
        float x = (float)v;
        if (isnan(s->f) || x > s->f)
                s->f = x;
}

/* A valid word into slot s: the union of the period's; *read gets bit. The slot keeps
 * the low 32 bits: every bit NVML's clock-event reasons (0x1 .. 0x200) and the Pi's
 * get_throttled word (bits 0-3, 16-19) define is there. */
static void fold_word(union hist_slot *s, const void *obj, const struct hist_series *t,
                      uint32_t *read, uint32_t bit)
{
        bool valid;
        uint64_t w;
        memcpy(&valid, (const char *)obj + t->valid_off, sizeof(valid));
        if (!valid)
                return;
        memcpy(&w, (const char *)obj + t->off, sizeof(w));
        s->u = (*read & bit ? s->u : 0) | (uint32_t)(w & 0xffffffffu);
        *read |= bit;
}

/* Fold the n values table t describes, of the struct at obj, into slots s[0..n); a
 * word read at slot k sets bit 1 << (shift + k) of *read. */
static void fold(union hist_slot *s, const void *obj, const struct hist_series *t, unsigned n,
                 uint32_t *read, unsigned shift)
{
        for (unsigned k = 0; k < n; k++) {
                if (t[k].reduce == HIST_or) {
                        fold_word(&s[k], obj, &t[k], read, 1u << (shift + k));
                        continue;
                }
                double v;
                memcpy(&v, (const char *)obj + t[k].off, sizeof(v));
                if (!VAL_OK(v))
                        continue;
                float x = (float)v;
                if (isnan(s[k].f) || t[k].reduce == HIST_last ||
                    (t[k].reduce == HIST_max ? x > s[k].f : x < s[k].f))
                        s[k].f = x;
        }
}

static void fold_gpus(struct history *h, const struct frame *f)
{
        const struct hist_layout *l = &h->lay;
        for (unsigned g = 0; g < l->ngpus && g < f->ngpus; g++) {
                const struct gpu_frame *gf = &f->gpus[g];
                union hist_slot *s = h->acc + l->gpu_off[g];
                if (!gf->present)
                        continue;
                s[GPU_FLAGS].u |= HIST_GPU_SEEN;
                if (!gf->ok) {
                        s[GPU_FLAGS].u |= HIST_GPU_FAILED;
                        continue;
                }
                if (gf->flags[0])
                        s[GPU_FLAGS].u |= HIST_GPU_FLAGGED;
                fold(s, gf, gpu_series, HG_COUNT, &s[GPU_FLAGS].u, GPU_WORD_SHIFT);
                for (unsigned k = 0; k < l->nfans[g] && k < gf->nfans; k++)
                        put_max(&s[GPU_FANS + k], gf->fan_speed_pct[k]);
        }
}

static void fold_host(struct history *h, const struct frame *f)
{
        union hist_slot *a = h->acc;
        fold(a + SL_HOST, &f->host, host_series, HH_COUNT, &a[SL_FLAGS].u, SL_HOST);
        if (f->rpi.present)
                fold(a + SL_RPI, &f->rpi, rpi_series, HR_COUNT, &a[SL_FLAGS].u, SL_RPI);
        /* No watch value is a word: nothing reads these bits. */
        uint32_t unread = 0;
        for (unsigned w = 0; w < h->lay.nwatches && w < f->nwatches; w++) {
                union hist_slot *s = a + SL_WATCH + HW_COUNT * w;
                fold(s, &f->watches[w], watch_series, HW_COUNT, &unread, 0);
        }
}

static void commit(struct history *h, const struct tick *t)
{
        size_t stride = h->lay.stride;
        pthread_mutex_lock(&h->lock);
        memcpy(h->slots + h->head * stride, h->acc, stride * sizeof(*h->acc));
        h->mono[h->head] = t->mono_ns;
        h->head = (h->head + 1) % h->cap;
        if (h->n < h->cap)
                h->n++;
        h->have_anchor = true;
        h->anchor_mono = t->mono_ns;
        h->anchor_real = t->real_ns;
        pthread_mutex_unlock(&h->lock);
}

/* A change of a GPU's enforced limit (a new value read; a sample without one keeps
 * the last) becomes a step at the tick's time, the oldest dropped when the ring is full. */
static void note_limits(struct history *h, const struct frame *f, const struct tick *t)
{
        for (unsigned g = 0; g < f->ngpus && g < VIGIL_MAX_GPUS; g++) {
                double w = f->gpus[g].enforced_limit_w;
                struct hist_steps *st = &h->limit[g];
                if (!f->gpus[g].present || !VAL_OK(w))
                        continue;
                unsigned last = (st->head + HISTORY_LIMIT_STEPS - 1) % HISTORY_LIMIT_STEPS;
                if (st->n && st->s[last].w == (float)w)
                        continue;
                pthread_mutex_lock(&h->lock);
                st->s[st->head] = (struct hist_step){.mono_ns = t->mono_ns, .w = (float)w};
                st->head = (st->head + 1) % HISTORY_LIMIT_STEPS;
                if (st->n < HISTORY_LIMIT_STEPS)
                        st->n++;
                pthread_mutex_unlock(&h->lock);
        }
}

VIGIL_HOT void history_push(struct history *h, const struct frame *f, const struct tick *t)
{
        if (!h)
                return;
        if ((!h->acc || layout_grew(&h->lay, f)) && relayout(h, f) < 0)
                return;
        if (t->due & VCLOCK_BIT(VCLOCK_GPU)) {
                note_limits(h, f, t);
                fold_gpus(h, f);
                h->acc_gpu_samples++;
        }
        if (!(t->due & VCLOCK_BIT(VCLOCK_HOST)))
                return;
        fold_host(h, f);
        if (++h->acc_ticks < h->every)
                return;
        if (h->acc_gpu_samples == 0)
                fold_gpus(h, f);
        commit(h, t);
        acc_reset(h);
}

void history_add_marker(struct history *h, int64_t mono_ns, const char *text, size_t len)
{
        if (!h)
                return;
        const char *nl = memchr(text, '\n', len);
        if (nl)
                len = (size_t)(nl - text);
        if (len > HISTORY_MARKER_LEN - 1)
                len = HISTORY_MARKER_LEN - 1;
        pthread_mutex_lock(&h->lock);
        struct hist_marker *m = &h->markers[h->mhead];
        m->mono_ns = mono_ns;
        memcpy(m->text, text, len);
        m->text[len] = '\0';
        h->mhead = (h->mhead + 1) % HISTORY_MAX_MARKERS;
        if (h->mn < HISTORY_MAX_MARKERS)
                h->mn++;
        pthread_mutex_unlock(&h->lock);
}

/* ---- copying ---- */

/* Copy src's records into dst, oldest first at index 0 of dst's ring. Both locked
 * or private; dst's ring is large enough. */
static void copy_records(struct history *dst, const struct history *src)
{
        size_t stride = src->lay.stride;
        size_t first = (src->head + src->cap - src->n) % src->cap;
        size_t part = src->n < src->cap - first ? src->n : src->cap - first;
        memcpy(dst->slots, src->slots + first * stride, part * stride * sizeof(*dst->slots));
        memcpy(dst->mono, src->mono + first, part * sizeof(*dst->mono));
        memcpy(dst->slots + part * stride, src->slots,
               (src->n - part) * stride * sizeof(*dst->slots));
        memcpy(dst->mono + part, src->mono, (src->n - part) * sizeof(*dst->mono));
        dst->n = src->n;
        dst->head = src->n % src->cap;
}

/* Make dst's ring hold at least nslots slots and cap times. 0 or -ENOMEM. */
static int grow(struct history *dst, size_t nslots, size_t cap)
{
        if (nslots > dst->slots_alloc) {
                union hist_slot *slots = realloc(dst->slots, nslots * sizeof(*slots));
                if (!slots)
                        return -ENOMEM;
                dst->slots = slots;
                dst->slots_alloc = nslots;
        }
        if (cap > dst->mono_alloc) {
                int64_t *mono = realloc(dst->mono, cap * sizeof(*mono));
                if (!mono)
                        return -ENOMEM;
                dst->mono = mono;
                dst->mono_alloc = cap;
        }
        return 0;
}

int history_copy(struct history *dst, struct history *src)
{
        pthread_mutex_lock(&src->lock);
        while (src->cap * src->lay.stride > dst->slots_alloc || src->cap > dst->mono_alloc) {
                size_t nslots = src->cap * src->lay.stride, cap = src->cap;
                pthread_mutex_unlock(&src->lock);
                int r = grow(dst, nslots, cap);
                if (r < 0)
                        return r;
                pthread_mutex_lock(&src->lock);
        }
        dst->cap = src->cap;
        dst->period_ns = src->period_ns;
        dst->every = src->every;
        dst->lay = src->lay;
        dst->n = dst->head = 0;
        if (src->slots)
                copy_records(dst, src);
        dst->have_anchor = src->have_anchor;
        dst->anchor_mono = src->anchor_mono;
        dst->anchor_real = src->anchor_real;
        memcpy(dst->markers, src->markers, sizeof(dst->markers));
        dst->mhead = src->mhead;
        dst->mn = src->mn;
        memcpy(dst->limit, src->limit, sizeof(dst->limit));
        pthread_mutex_unlock(&src->lock);
        return 0;
}

/* ---- reading ---- */

size_t history_count(const struct history *h)
{
        return h->n;
}

size_t history_capacity(const struct history *h)
{
        return h->cap;
}

int64_t history_period_ns(const struct history *h)
{
        return h->period_ns;
}

unsigned history_ticks_per_record(const struct history *h)
{
        return h->every;
}

size_t history_bytes(const struct history *h)
{
        size_t stride = h->lay.stride;
        return h->slots_alloc * sizeof(union hist_slot) + h->mono_alloc * sizeof(int64_t) +
               (h->acc ? stride * sizeof(union hist_slot) : 0) + sizeof(h->markers) +
               sizeof(h->limit);
}

/* Slot off of record i, or NULL. */
static const union hist_slot *slot(const struct history *h, size_t i, unsigned off)
{
        if (i >= h->n || off >= h->lay.stride)
                return NULL;
        size_t idx = (h->head + h->cap - h->n + i) % h->cap;
        return &h->slots[idx * h->lay.stride + off];
}

static double fval(const union hist_slot *s)
{
        return s ? (double)s->f : NAN;
}

int64_t history_mono_ns(const struct history *h, size_t i)
{
        if (i >= h->n)
                return 0;
        return h->mono[(h->head + h->cap - h->n + i) % h->cap];
}

bool history_anchor(const struct history *h, int64_t *ret_mono_ns, int64_t *ret_real_ns)
{
        if (!h->have_anchor)
                return false;
        *ret_mono_ns = h->anchor_mono;
        *ret_real_ns = h->anchor_real;
        return true;
}

/* Record i's value of a double slot; NAN for a word's. */
static double value_at(const struct history *h, size_t i, unsigned at, const struct hist_series *t)
{
        return t->reduce == HIST_or ? NAN : fval(slot(h, i, at));
}

/* Record i's word at slot at, when flags slot's bit says one was read. */
static bool word_at(const struct history *h, size_t i, unsigned at, unsigned flags, uint32_t bit,
                    uint32_t *ret)
{
        const union hist_slot *fl = slot(h, i, flags);
        if (!fl || !(fl->u & bit))
                return false;
        *ret = slot(h, i, at)->u;
        return true;
}

double history_host(const struct history *h, size_t i, enum hist_host field)
{
        return (unsigned)field < HH_COUNT ? value_at(h, i, SL_HOST + field, &host_series[field])
                                          : NAN;
}

double history_rpi(const struct history *h, size_t i, enum hist_rpi field)
{
        return (unsigned)field < HR_COUNT ? value_at(h, i, SL_RPI + field, &rpi_series[field])
                                          : NAN;
}

bool history_rpi_throttled(const struct history *h, size_t i, uint32_t *ret)
{
        return word_at(h, i, SL_RPI + HR_THROTTLED, SL_FLAGS, 1u << (SL_RPI + HR_THROTTLED), ret);
}

double history_watch(const struct history *h, size_t i, unsigned watch, enum hist_watch field)
{
        if (watch >= h->lay.nwatches || (unsigned)field >= HW_COUNT)
                return NAN;
        return fval(slot(h, i, SL_WATCH + HW_COUNT * watch + field));
}

double history_gpu(const struct history *h, size_t i, unsigned gpu, enum hist_gpu field)
{
        if (gpu >= h->lay.ngpus || (unsigned)field >= HG_COUNT)
                return NAN;
        return value_at(h, i, h->lay.gpu_off[gpu] + field, &gpu_series[field]);
}

double history_gpu_fan(const struct history *h, size_t i, unsigned gpu, unsigned fan)
{
        if (gpu >= h->lay.ngpus || fan >= h->lay.nfans[gpu])
                return NAN;
        return fval(slot(h, i, h->lay.gpu_off[gpu] + GPU_FANS + fan));
}

double history_gpu_enforced(const struct history *h, size_t i, unsigned gpu)
{
        if (gpu >= VIGIL_MAX_GPUS || i >= h->n)
                return NAN;
        const struct hist_steps *st = &h->limit[gpu];
        int64_t end = history_mono_ns(h, i), start = end - h->period_ns;
        double low = NAN;
        /* Newest first: the steps inside (start, end], then the one in effect at start. */
        for (unsigned k = 0; k < st->n; k++) {
                const struct hist_step *s =
                    &st->s[(st->head + HISTORY_LIMIT_STEPS - 1 - k) % HISTORY_LIMIT_STEPS];
                if (s->mono_ns > end)
                        continue;
                low = isnan(low) || s->w < low ? s->w : low;
                if (s->mono_ns <= start)
                        break;
        }
        return low;
}

uint32_t history_gpu_mask(const struct history *h, size_t i, unsigned gpu)
{
        uint32_t mask = 0;
        if (gpu < h->lay.ngpus) {
                unsigned off = h->lay.gpu_off[gpu];
                word_at(h, i, off + HG_THROTTLE_MASK, off + GPU_FLAGS,
                        1u << (GPU_WORD_SHIFT + HG_THROTTLE_MASK), &mask);
        }
        return mask;
}

unsigned history_gpu_flags(const struct history *h, size_t i, unsigned gpu)
{
        const union hist_slot *s =
            gpu < h->lay.ngpus ? slot(h, i, h->lay.gpu_off[gpu] + GPU_FLAGS) : NULL;
        return s ? s->u & GPU_PUBLIC : 0;
}

unsigned history_nwatches(const struct history *h)
{
        return h->lay.nwatches;
}

unsigned history_ngpus(const struct history *h)
{
        return h->lay.ngpus;
}

unsigned history_nfans(const struct history *h, unsigned gpu)
{
        return gpu < h->lay.ngpus ? h->lay.nfans[gpu] : 0;
}

size_t history_nmarkers(const struct history *h)
{
        return h->mn;
}

const char *history_marker(const struct history *h, size_t i, int64_t *ret_mono_ns)
{
        if (i >= h->mn)
                return NULL;
        const struct hist_marker *m =
            &h->markers[(h->mhead + HISTORY_MAX_MARKERS - h->mn + i) % HISTORY_MAX_MARKERS];
        *ret_mono_ns = m->mono_ns;
        return m->text;
}
