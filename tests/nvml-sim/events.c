/* SPDX-License-Identifier: Apache-2.0 */
/* The simulated NVML's events: a set collects the events of the GPUs and types
 * registered with it, in a bounded queue that a client's thread drains with
 * nvmlEventSetWait_v2 while another thread samples (and so moves the timelines). */
#include "sim.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

static struct sim_evset *find_set(nvmlEventSet_t set)
{
        for (struct sim_evset *s = sim.sets; s; s = s->next)
                if ((void *)s == (void *)set)
                        return s;
        return NULL;
}

static void unlink_set(struct sim_evset *set)
{
        for (struct sim_evset **p = &sim.sets; *p; p = &(*p)->next) {
                if (*p == set) {
                        *p = set->next;
                        sim.nsets--;
                        return;
                }
        }
}

/* Free now, or leave it to the last waiter. */
static void release_set(struct sim_evset *set)
{
        unlink_set(set);
        if (set->waiters) {
                set->dead = true;
                sim_wake_waiters();
        } else {
                free(set->q);
                free(set);
        }
}

void sim_events_fire(unsigned gpu, unsigned long long type, unsigned long long data, uint64_t count)
{
        for (struct sim_evset *s = sim.sets; s; s = s->next) {
                if (!(s->mask[gpu] & type))
                        continue;
                for (uint64_t i = 0; i < count; i++) {
                        if (s->len == SIM_EVQ_CAP) {
                                s->dropped += count - i;
                                break;
                        }
                        struct sim_event *e = &s->q[(s->head + s->len) % SIM_EVQ_CAP];
                        e->gpu = gpu;
                        e->type = type;
                        e->data = data;
                        s->len++;
                }
        }
        sim_wake_waiters();
}

void sim_events_release_all(void)
{
        while (sim.sets)
                release_set(sim.sets);
}

nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set)
{
        nvmlReturn_t r = NVML_SUCCESS;
        pthread_mutex_lock(&sim.lock);
        sim_log(__func__, -1);
        if (!sim.refcount)
                r = NVML_ERROR_UNINITIALIZED;
        else if (!set)
                r = NVML_ERROR_INVALID_ARGUMENT;
        else if (sim.nsets >= SIM_MAX_EVSETS)
                r = NVML_ERROR_MEMORY;
        struct sim_evset *s = r == NVML_SUCCESS ? calloc(1, sizeof(*s)) : NULL;
        if (s && !(s->q = malloc(SIM_EVQ_CAP * sizeof(s->q[0])))) {
                free(s);
                s = NULL;
        }
        if (r == NVML_SUCCESS && !s)
                r = NVML_ERROR_MEMORY;
        if (s) {
                s->next = sim.sets;
                sim.sets = s;
                sim.nsets++;
                *set = (nvmlEventSet_t)(void *)s;
        }
        pthread_mutex_unlock(&sim.lock);
        return r;
}

nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set)
{
        nvmlReturn_t r = NVML_SUCCESS;
        pthread_mutex_lock(&sim.lock);
        sim_log(__func__, -1);
        struct sim_evset *s = sim.refcount ? find_set(set) : NULL;
        if (!sim.refcount)
                r = NVML_ERROR_UNINITIALIZED;
        else if (!s)
                r = NVML_ERROR_INVALID_ARGUMENT;
        else
                release_set(s);
        pthread_mutex_unlock(&sim.lock);
        return r;
}

nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long *eventTypes)
{
        struct sim_gpu *g;
        int64_t v;
        nvmlReturn_t r = sim_enter(device, __func__, false, &g);
        if (r != NVML_SUCCESS)
                return r;
        r = sim_get(g, F_EVENTS, eventTypes ? &v : NULL);
        if (r == NVML_SUCCESS)
                *eventTypes = (unsigned long long)v;
        sim_leave();
        return r;
}

/* Types the GPU does not support register nothing: NOT_SUPPORTED, the set unchanged. A
 * `fail register=CODE` makes the call return CODE (999 UNKNOWN: the set is undefined,
 * the client must free it) and register nothing. */
nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes,
                                      nvmlEventSet_t set)
{
        struct sim_gpu *g;
        int64_t supported;
        nvmlReturn_t r = sim_enter(device, __func__, false, &g);
        if (r != NVML_SUCCESS)
                return r;
        struct sim_evset *s = find_set(set);
        if (!s)
                r = NVML_ERROR_INVALID_ARGUMENT;
        else if (g->v[F_REGISTER].err)
                r = g->v[F_REGISTER].err;
        else
                r = sim_get(g, F_EVENTS, &supported);
        if (r == NVML_SUCCESS && (eventTypes & ~(unsigned long long)supported))
                r = NVML_ERROR_NOT_SUPPORTED;
        if (r == NVML_SUCCESS)
                s->mask[g->index] |= eventTypes;
        sim_leave();
        return r;
}

static bool registered_gpu_lost(const struct sim_evset *s)
{
        for (unsigned i = 0; i < sim.ngpus; i++)
                if (s->mask[i] && sim.gpu[i].lost)
                        return true;
        return false;
}

static int64_t mono_ms(void)
{
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void sim_wake_waiters(void)
{
        uint64_t one = 1;
        for (struct sim_waiter *w = sim.waiting; w; w = w->next)
                if (write(w->fd, &one, sizeof(one)) < 0)
                        continue; /* the counter is full: it is awake anyway */
}

static void stop_waiting(struct sim_waiter *w)
{
        for (struct sim_waiter **p = &sim.waiting; *p; p = &(*p)->next) {
                if (*p == w) {
                        *p = w->next;
                        break;
                }
        }
        close(w->fd);
}

/* Sleep until woken, interrupted or deadline (CLOCK_MONOTONIC ms), sim.lock released
 * meanwhile. False when a signal interrupted it. */
static bool sleep_waiter(struct sim_waiter *w, int64_t deadline)
{
        struct pollfd p = {.fd = w->fd, .events = POLLIN};
        uint64_t v;
        int64_t left = deadline - mono_ms();
        pthread_mutex_unlock(&sim.lock);
        int n = left > 0 ? poll(&p, 1, (int)left) : 0;
        int e = errno;
        pthread_mutex_lock(&sim.lock);
        if (read(w->fd, &v, sizeof(v)) < 0)
                v = 0; /* not woken: nothing to consume */
        return !(n < 0 && e == EINTR);
}

/* A pending wait_error comes first; then queued events, in order; then a lost registered
 * GPU answers GPU_IS_LOST (every time, without waiting); otherwise wait up to timeoutms
 * for one. */
static nvmlReturn_t event_wait(const char *fn, nvmlEventSet_t set, nvmlEventData_t *data,
                               unsigned int timeoutms)
{
        nvmlReturn_t r;
        pthread_mutex_lock(&sim.lock);
        sim_log(fn, -1);
        struct sim_evset *s = sim.refcount ? find_set(set) : NULL;
        if (!sim.refcount || !s || !data) {
                r = !sim.refcount ? NVML_ERROR_UNINITIALIZED : NVML_ERROR_INVALID_ARGUMENT;
                pthread_mutex_unlock(&sim.lock);
                return r;
        }
        int64_t deadline = mono_ms() + timeoutms;
        struct sim_waiter w = {.fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), .next = sim.waiting};
        if (w.fd < 0) {
                pthread_mutex_unlock(&sim.lock);
                return NVML_ERROR_UNKNOWN;
        }
        sim.waiting = &w;
        s->waiters++;
        for (;;) {
                if (s->dead || !sim.refcount) {
                        r = NVML_ERROR_UNINITIALIZED;
                        break;
                }
                if (sim.wait_errors) {
                        sim.wait_errors--;
                        r = sim.wait_error_code;
                        break;
                }
                if (s->len) {
                        const struct sim_event *e = &s->q[s->head];
                        data->device = (nvmlDevice_t)(void *)&sim.gpu[e->gpu];
                        data->eventType = e->type;
                        data->eventData = e->data;
                        data->gpuInstanceId = NVML_INSTANCE_ID_NONE;
                        data->computeInstanceId = NVML_INSTANCE_ID_NONE;
                        s->head = (s->head + 1) % SIM_EVQ_CAP;
                        s->len--;
                        r = NVML_SUCCESS;
                        break;
                }
                if (registered_gpu_lost(s)) {
                        r = NVML_ERROR_GPU_IS_LOST;
                        break;
                }
                /* Timed out, or interrupted by a signal: TIMEOUT either way (nvml.h). */
                if (mono_ms() >= deadline || !sleep_waiter(&w, deadline)) {
                        r = NVML_ERROR_TIMEOUT;
                        break;
                }
        }
        stop_waiting(&w);
        s->waiters--;
        if (s->dead && !s->waiters) {
                free(s->q);
                free(s);
        }
        pthread_mutex_unlock(&sim.lock);
        return r;
}

/* The old driver has only the unversioned name (same arguments). */
#ifndef SIM_OLD_DRIVER
nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms)
{
        return event_wait(__func__, set, data, timeoutms);
}
#endif

nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms)
{
        return event_wait(__func__, set, data, timeoutms);
}
