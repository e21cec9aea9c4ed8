/* SPDX-License-Identifier: Apache-2.0 */
/* The NVML event listener and its queue. See nvml_events.h. */
#include "collect/nvml_events.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collect/nvml_read.h"
#include "core/vigil.h"
#include "util/thread.h"
#include "util/clock.h"
#include "util/hot.h"

#define HEALTHY_RESET_NS (60 * NSEC_PER_SEC) /* no failure this long: back-off to 1 s */

/* ---- the queue ---- */

int nvml_evq_init(struct nvml_evq *q, size_t cap)
{
        memset(q, 0, sizeof(*q));
        if (cap < 1 || cap > NVML_EVQ_MAX_CAP)
                return -EINVAL;
        q->buf = calloc(cap, sizeof(*q->buf));
        if (!q->buf)
                return -ENOMEM;
        q->cap = cap;
        pthread_mutex_init(&q->lock, NULL);
        return 0;
}

void nvml_evq_fini(struct nvml_evq *q)
{
        if (!q->buf)
                return;
        pthread_mutex_destroy(&q->lock);
        free(q->buf);
        memset(q, 0, sizeof(*q));
}

bool nvml_evq_push(struct nvml_evq *q, const struct nvml_event *e)
{
        bool ok;
        pthread_mutex_lock(&q->lock);
        ok = q->len < q->cap;
        if (ok) {
                q->buf[(q->head + q->len) % q->cap] = *e;
                q->len++;
                q->pushed++;
        } else {
                q->dropped++;
        }
        pthread_mutex_unlock(&q->lock);
        return ok;
}

VIGIL_HOT size_t nvml_evq_pop(struct nvml_evq *q, struct nvml_event *out, size_t cap)
{
        size_t n = 0;
        pthread_mutex_lock(&q->lock);
        while (n < cap && q->len > 0) {
                out[n++] = q->buf[q->head];
                q->head = (q->head + 1) % q->cap;
                q->len--;
        }
        pthread_mutex_unlock(&q->lock);
        return n;
}

uint64_t nvml_evq_dropped(struct nvml_evq *q)
{
        pthread_mutex_lock(&q->lock);
        uint64_t d = q->dropped;
        pthread_mutex_unlock(&q->lock);
        return d;
}

int64_t nvml_listener_backoff(int64_t cur_ns)
{
        if (cur_ns <= 0)
                return NVML_LISTENER_BACKOFF_MIN_NS;
        if (cur_ns >= NVML_LISTENER_BACKOFF_MAX_NS / 2)
                return NVML_LISTENER_BACKOFF_MAX_NS;
        return cur_ns * 2;
}

/* ---- the listener ---- */

struct nvml_listener {
        const struct nvml_lib *lib;
        nvml_action_wanted_fn action_wanted;
        unsigned long long types; /* what each GPU registers, of what it supports */
        unsigned ngpus;
        pthread_t thread;
        struct nvml_evq q;
        pthread_mutex_t lock; /* guards everything down to the thread-only part */
        pthread_cond_t cond;  /* CLOCK_MONOTONIC: wakes the back-off sleep on stop */
        bool stop;
        nvmlDevice_t handle[VIGIL_MAX_GPUS];
        bool pending[VIGIL_MAX_GPUS]; /* a handle given that the set does not have yet */
        _Atomic bool nudge;           /* a handle was given: interrupt the wait until taken */
        _Atomic bool in_wait;         /* the thread is in (or about to enter) its wait */
        uint64_t restarts;
        char notes[NVML_LISTENER_NOTES][NVML_LISTENER_NOTE_LEN];
        bool note_warn[NVML_LISTENER_NOTES];
        unsigned note_head, note_len;
        /* The thread's own. */
        nvmlEventSet_t set;
        nvmlDevice_t reg[VIGIL_MAX_GPUS]; /* handles in the set, for an event's slot */
};

static void note(struct nvml_listener *l, bool warn, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void note(struct nvml_listener *l, bool warn, const char *fmt, ...)
{
        va_list ap;
        pthread_mutex_lock(&l->lock);
        if (l->note_len < NVML_LISTENER_NOTES) {
                unsigned i = (l->note_head + l->note_len++) % NVML_LISTENER_NOTES;
                va_start(ap, fmt);
                vsnprintf(l->notes[i], sizeof(l->notes[i]), fmt, ap);
                va_end(ap);
                l->note_warn[i] = warn;
        }
        pthread_mutex_unlock(&l->lock);
}

static bool stopping(struct nvml_listener *l)
{
        pthread_mutex_lock(&l->lock);
        bool s = l->stop;
        pthread_mutex_unlock(&l->lock);
        return s;
}

/* Sleep ns unless stopped first. */
static void sleep_unless_stopped(struct nvml_listener *l, int64_t ns)
{
        int64_t until = now_mono_ns() + ns;
        struct timespec ts = {until / NSEC_PER_SEC, until % NSEC_PER_SEC};
        pthread_mutex_lock(&l->lock);
        while (!l->stop && pthread_cond_timedwait(&l->cond, &l->lock, &ts) != ETIMEDOUT)
                ;
        pthread_mutex_unlock(&l->lock);
}

/* Register the types gpu supports. Appends "gpuN 0x..." or why not to sb. SUCCESS also
 * when it supports none of them (the set stays usable); another code when the GPU
 * did not answer. */
static nvmlReturn_t register_gpu(struct nvml_listener *l, unsigned slot, nvmlDevice_t h, char *sb,
                                 size_t cap)
{
        const struct nvml_lib *lib = l->lib;
        unsigned long long supported = l->types, mask;
        size_t n = strlen(sb);
        nvmlReturn_t r = NVML_SUCCESS;
        if (lib->supported_event_types)
                r = lib->supported_event_types(h, &supported);
        if (r == NVML_ERROR_NOT_SUPPORTED)
                supported = 0, r = NVML_SUCCESS;
        mask = supported & l->types;
        if (r == NVML_SUCCESS && mask)
                r = lib->register_events(h, mask, l->set);
        if (r == NVML_ERROR_NOT_SUPPORTED)
                mask = 0, r = NVML_SUCCESS;
        if (r == NVML_ERROR_UNKNOWN)
                return r; /* the set is undefined: the caller frees it (nvml.h) */
        if (r != NVML_SUCCESS) {
                snprintf(sb + n, cap - n, "%sgpu%u not registered (%s)", n ? ", " : "", slot,
                         nvml_lib_strerror(lib, r));
                return r;
        }
        l->reg[slot] = h;
        snprintf(sb + n, cap - n, "%sgpu%u mask=0x%04llx", n ? ", " : "", slot, mask);
        return NVML_SUCCESS;
}

/* Register every handle the main loop gave that the set lacks. UNKNOWN when a
 * registration left the set undefined (it must be rebuilt), else SUCCESS. */
VIGIL_HOT static nvmlReturn_t register_pending(struct nvml_listener *l, bool all)
{
        nvmlDevice_t todo[VIGIL_MAX_GPUS];
        char line[NVML_LISTENER_NOTE_LEN - 40] = "";
        unsigned n = 0;
        pthread_mutex_lock(&l->lock);
        for (unsigned i = 0; i < l->ngpus; i++) {
                todo[i] = (all || l->pending[i]) ? l->handle[i] : NULL;
                l->pending[i] = false;
                n += todo[i] != NULL;
        }
        atomic_store_explicit(&l->nudge, false, memory_order_relaxed);
        pthread_mutex_unlock(&l->lock);
        if (n == 0 && !all)
                return NVML_SUCCESS;
        for (unsigned i = 0; i < l->ngpus; i++) {
                if (todo[i] &&
                    register_gpu(l, i, todo[i], line, sizeof(line)) == NVML_ERROR_UNKNOWN) {
                        pthread_mutex_lock(&l->lock);
                        for (unsigned k = 0; k < l->ngpus; k++)
                                l->pending[k] = l->pending[k] || todo[k];
                        pthread_mutex_unlock(&l->lock);
                        return NVML_ERROR_UNKNOWN;
                }
        }
        note(l, false, "event listener %s: %s", all ? "started" : "registered",
             line[0] ? line : "no GPU answered");
        return NVML_SUCCESS;
}

static void free_set(struct nvml_listener *l)
{
        if (l->set && l->lib->event_set_free)
                l->lib->event_set_free(l->set);
        l->set = NULL;
        memset(l->reg, 0, sizeof(l->reg));
}

static int slot_of(const struct nvml_listener *l, nvmlDevice_t dev)
{
        for (unsigned i = 0; i < l->ngpus; i++)
                if (l->reg[i] && l->reg[i] == dev)
                        return (int)i;
        return -1;
}

static void failed(struct nvml_listener *l, int64_t *backoff, const char *what, nvmlReturn_t r)
{
        free_set(l);
        *backoff = nvml_listener_backoff(*backoff);
        pthread_mutex_lock(&l->lock);
        l->restarts++;
        pthread_mutex_unlock(&l->lock);
        note(l, true, "%s: %s; restarting the event listener in %lld s", what,
             nvml_lib_strerror(l->lib, r), (long long)(*backoff / NSEC_PER_SEC));
        sleep_unless_stopped(l, *backoff);
}

static void take(struct nvml_listener *l, const nvmlEventData_t *d)
{
        int slot = slot_of(l, d->device);
        if (slot < 0)
                return; /* a handle no longer in use */
        struct nvml_event e = {
            .mono_ns = now_mono_ns(),
            .real_ns = now_real_ns(),
            .type = d->eventType,
            .data = d->eventData,
            .slot = (unsigned)slot,
        };
        if (l->action_wanted && l->action_wanted(e.type, e.data))
                e.action_read =
                    nvml_read_recovery_action(l->lib, d->device, &e.action) == NVML_SUCCESS;
        nvml_evq_push(&l->q, &e);
}

int nvml_listener_signal(void)
{
        return SIGRTMIN + 1;
}

/* The interruption's handler: its delivery is the point, it has nothing to do. */
static void on_wake_signal(int sig)
{
        (void)sig;
}

/* Install the handler (process-wide, idempotent: always the same empty one) without
 * SA_RESTART, so the signal ends a wait in the driver. Blocked in every thread but the
 * listener's (vigil_thread_create blocks all signals; listener_main unblocks it). */
static int install_wake_signal(void)
{
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_wake_signal;
        sigemptyset(&sa.sa_mask);
        return sigaction(nvml_listener_signal(), &sa, NULL) < 0 ? -errno : 0;
}

static void unblock_wake_signal(void)
{
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, nvml_listener_signal());
        pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

VIGIL_HOT static void *listener_main(void *arg)
{
        struct nvml_listener *l = arg;
        const struct nvml_lib *lib = l->lib;
        int64_t backoff = 0, healthy_since = 0;
        unblock_wake_signal();
        while (!stopping(l)) {
                nvmlReturn_t r;
                if (!l->set) {
                        r = lib->event_set_create(&l->set);
                        if (r != NVML_SUCCESS) {
                                l->set = NULL;
                                failed(l, &backoff, "cannot create an event set", r);
                                continue;
                        }
                        r = register_pending(l, true);
                        healthy_since = now_mono_ns();
                } else {
                        r = register_pending(l, false);
                }
                if (r != NVML_SUCCESS) {
                        failed(l, &backoff, "event registration left the set undefined", r);
                        continue;
                }
                nvmlEventData_t d;
                memset(&d, 0, sizeof(d));
                /* A nudge interrupts only the wait, never the calls of take() or of a
                 * registration, which could fail on the interruption. */
                atomic_store_explicit(&l->in_wait, true, memory_order_seq_cst);
                r = lib->event_set_wait(l->set, &d, NVML_LISTENER_WAIT_MS);
                atomic_store_explicit(&l->in_wait, false, memory_order_seq_cst);
                if (r == NVML_SUCCESS) {
                        take(l, &d);
                } else if (r == NVML_ERROR_TIMEOUT) {
                        if (backoff && now_mono_ns() - healthy_since >= HEALTHY_RESET_NS)
                                backoff = 0;
                } else {
                        failed(l, &backoff, "event wait failed", r);
                }
        }
        free_set(l);
        return NULL;
}

int nvml_listener_start(struct nvml_listener **ret, const struct nvml_lib *lib, unsigned ngpus,
                        const nvmlDevice_t handles[], size_t queue_cap,
                        nvml_action_wanted_fn action_wanted, unsigned long long types)
{
        if (!lib->event_set_create || !lib->register_events || !lib->event_set_wait)
                return -ENOTSUP;
        if (ngpus > VIGIL_MAX_GPUS)
                return -EINVAL;
        int r = install_wake_signal();
        if (r < 0)
                return r;
        struct nvml_listener *l = calloc(1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        atomic_init(&l->nudge, false);
        atomic_init(&l->in_wait, false);
        r = nvml_evq_init(&l->q, queue_cap);
        if (r < 0) {
                free(l);
                return r;
        }
        l->lib = lib;
        l->action_wanted = action_wanted;
        l->types = types ? types & NVML_LISTENER_TYPES : NVML_LISTENER_TYPES;
        l->ngpus = ngpus;
        for (unsigned i = 0; i < ngpus; i++)
                l->handle[i] = handles[i];
        cond_init_mono(&l->cond);
        pthread_mutex_init(&l->lock, NULL);
        r = vigil_thread_create(&l->thread, listener_main, l);
        if (r < 0) {
                pthread_mutex_destroy(&l->lock);
                pthread_cond_destroy(&l->cond);
                nvml_evq_fini(&l->q);
                free(l);
                return r;
        }
        *ret = l;
        return 0;
}

void nvml_listener_set_handle(struct nvml_listener *l, unsigned slot, nvmlDevice_t handle)
{
        if (!l || slot >= l->ngpus)
                return;
        pthread_mutex_lock(&l->lock);
        l->handle[slot] = handle;
        l->pending[slot] = handle != NULL;
        if (handle)
                atomic_store_explicit(&l->nudge, true, memory_order_relaxed);
        pthread_mutex_unlock(&l->lock);
        nvml_listener_nudge(l);
}

VIGIL_HOT void nvml_listener_nudge(struct nvml_listener *l)
{
        if (l && atomic_load_explicit(&l->nudge, memory_order_relaxed) &&
            atomic_load_explicit(&l->in_wait, memory_order_seq_cst))
                pthread_kill(l->thread, nvml_listener_signal());
}

VIGIL_HOT size_t nvml_listener_drain(struct nvml_listener *l, struct nvml_event *out, size_t cap)
{
        return l ? nvml_evq_pop(&l->q, out, cap) : 0;
}

VIGIL_HOT uint64_t nvml_listener_dropped(struct nvml_listener *l)
{
        return l ? nvml_evq_dropped(&l->q) : 0;
}

VIGIL_HOT uint64_t nvml_listener_restarts(struct nvml_listener *l)
{
        if (!l)
                return 0;
        pthread_mutex_lock(&l->lock);
        uint64_t n = l->restarts;
        pthread_mutex_unlock(&l->lock);
        return n;
}

VIGIL_HOT bool nvml_listener_take_note(struct nvml_listener *l, char *out, size_t cap,
                                       bool *ret_warn)
{
        bool got = false;
        if (!l)
                return false;
        pthread_mutex_lock(&l->lock);
        if (l->note_len > 0) {
                unsigned i = l->note_head;
                snprintf(out, cap, "%s", l->notes[i]);
                if (ret_warn)
                        *ret_warn = l->note_warn[i];
                l->note_head = (i + 1) % NVML_LISTENER_NOTES;
                l->note_len--;
                got = true;
        }
        pthread_mutex_unlock(&l->lock);
        return got;
}

/* Interrupt the thread's wait until it ends, at most NVML_LISTENER_STOP_NS. */
static bool join_interrupting(struct nvml_listener *l)
{
        int64_t give_up = now_mono_ns() + NVML_LISTENER_STOP_NS;
        for (;;) {
                /* Again each time: one sent before the thread entered the wait is lost. */
                pthread_kill(l->thread, nvml_listener_signal());
                int64_t until = now_real_ns() + NVML_LISTENER_POKE_NS;
                struct timespec ts = {until / NSEC_PER_SEC, until % NSEC_PER_SEC};
                if (pthread_timedjoin_np(l->thread, NULL, &ts) == 0)
                        return true;
                if (now_mono_ns() >= give_up)
                        return false;
        }
}

bool nvml_listener_stop(struct nvml_listener *l)
{
        if (!l)
                return true;
        pthread_mutex_lock(&l->lock);
        l->stop = true;
        pthread_cond_broadcast(&l->cond);
        pthread_mutex_unlock(&l->lock);
        if (!join_interrupting(l)) {
                pthread_detach(l->thread); /* l stays allocated: the thread still uses it */
                return false;
        }
        pthread_mutex_destroy(&l->lock);
        pthread_cond_destroy(&l->cond);
        nvml_evq_fini(&l->q);
        free(l);
        return true;
}
