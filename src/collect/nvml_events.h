/* SPDX-License-Identifier: Apache-2.0 */
/* The NVML event listener: one thread, one event set for every sampled GPU, and a
 * bounded queue to the main loop. An event as the thread receives it:
 *   nvmlEventSetWait_v2 -> {device=gpu0, eventType=0x8 (Xid), eventData=79}
 *
 * The thread only enqueues: it never touches the frame, the counters or the log
 * files. What it has to say (started, failed, restarting) goes into a small note
 * queue that the main loop drains and logs (nvml_listener_take_note).
 *
 * Failures: when the event set cannot be created, or a wait returns anything but
 * SUCCESS or TIMEOUT (GPU_IS_LOST included), the set is freed and built again after a
 * back-off of 1 s, doubling to 60 s; the back-off returns to 1 s after 60 s without a
 * failure. A GPU whose registration fails (lost) is left out of the set until the
 * main loop hands its handle again (nvml_listener_set_handle, after the GPU answered
 * again). Events that happen while the set is being rebuilt are not seen: NVML only
 * reports events to a set registered before they happened.
 *
 * nvmlDeviceRegisterEvents answering UNKNOWN leaves the set "in undefined state"
 * (nvml.h): the set is freed and built again, on the same back-off.
 *
 * The recovery action: for the events the caller's predicate picks (a recovery-action
 * event, a reset/reboot-class Xid), the thread reads field 230 (nvml_read.h) right
 * after the wait returned it, and the event carries the value.
 *
 * Stopping: nvml.h says of nvmlEventSetWait_v2 that it "can return before specified
 * timeout passes (e.g. when interrupt arrives)", returning NVML_ERROR_TIMEOUT "if no
 * event arrived in specified timeout or interrupt arrived" (NVIDIA's nvml.h, as in
 * NVIDIA/go-nvml gen/nvml/nvml.h). So the wait is long (NVML_LISTENER_WAIT_MS: the
 * thread wakes only for events) and a stop interrupts it with a signal sent to the
 * thread alone (nvml_listener_signal(), an empty handler without SA_RESTART, unblocked
 * in that thread only), not with pthread_cancel. A driver that ignored the interruption
 * would hold the stop at most NVML_LISTENER_STOP_NS: the thread is then left running
 * and the caller must not shut NVML down under it. A handle the main loop hands over
 * (a GPU acquired again after it was lost) interrupts the wait the same way, so the GPU
 * is registered at once, not when the wait times out: an Xid right after a GPU comes
 * back is the one its user needs.
 *
 * Memory: the queue holds cap events of 48 bytes (1024: 48 KiB), allocated once. */
#ifndef VIGIL_COLLECT_NVML_EVENTS_H
#define VIGIL_COLLECT_NVML_EVENTS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/nvml_lib.h"

#define NVML_EVQ_DEFAULT_CAP 1024 /* events queued for the main loop */
#define NVML_EVQ_MAX_CAP     65536
/* One wait. A stop does not wait for it to end: it interrupts the wait (below). */
#define NVML_LISTENER_WAIT_MS 10000
/* How long nvml_listener_stop waits for the thread, interrupting its wait every
 * NVML_LISTENER_POKE_NS, before it leaves the thread running. */
#define NVML_LISTENER_STOP_NS        (500LL * 1000000LL)
#define NVML_LISTENER_POKE_NS        (20LL * 1000000LL)
#define NVML_LISTENER_BACKOFF_MIN_NS (1LL * 1000000000LL)
#define NVML_LISTENER_BACKOFF_MAX_NS (60LL * 1000000000LL)
#define NVML_LISTENER_NOTE_LEN       200
#define NVML_LISTENER_NOTES          8

/* The event types vigil listens for, when the GPU supports them. */
#define NVML_LISTENER_TYPES                                                                        \
        (NVML_EVENT_SINGLE_BIT_ECC | NVML_EVENT_DOUBLE_BIT_ECC | NVML_EVENT_PSTATE |               \
         NVML_EVENT_XID_CRITICAL_ERROR | NVML_EVENT_CLOCK | NVML_EVENT_GPU_UNAVAILABLE_ERROR |     \
         NVML_EVENT_GPU_RECOVERY_ACTION)

/* One event, as received. */
struct nvml_event {
        int64_t mono_ns;         /* CLOCK_MONOTONIC when the wait returned it */
        int64_t real_ns;         /* CLOCK_REALTIME, for the log line */
        unsigned long long type; /* NVML_EVENT_* bits */
        unsigned long long data; /* the Xid, the recovery action, else 0 */
        unsigned slot;           /* GPU slot (frame->gpus[slot]) */
        bool action_read;        /* action holds the GPU's recovery action (field 230) */
        unsigned action;         /* NVML_GPU_RECOVERY_ACTION_*, read after the event */
};

/* Which events the listener reads the recovery action for (type, eventData). */
typedef bool (*nvml_action_wanted_fn)(unsigned long long type, unsigned long long data);

/* A bounded FIFO of events, safe between one producer and one consumer thread. */
struct nvml_evq {
        pthread_mutex_t lock;
        struct nvml_event *buf;
        size_t cap, head, len;
        uint64_t pushed;  /* accepted since init */
        uint64_t dropped; /* refused because the queue was full */
};

/* Allocate a queue of cap events (1..NVML_EVQ_MAX_CAP). 0, -EINVAL or -ENOMEM. */
int nvml_evq_init(struct nvml_evq *q, size_t cap);
/* Free the queue; accepts a zeroed or finished one. */
void nvml_evq_fini(struct nvml_evq *q);
/* Append e; false (and counted as dropped) when the queue is full. */
bool nvml_evq_push(struct nvml_evq *q, const struct nvml_event *e);
/* Move up to cap of the oldest events into out, oldest first; returns how many. */
size_t nvml_evq_pop(struct nvml_evq *q, struct nvml_event *out, size_t cap);
/* Events refused so far. */
uint64_t nvml_evq_dropped(struct nvml_evq *q);

/* The back-off after cur_ns: 1 s when cur_ns is 0, else doubled, at most 60 s. Pure. */
int64_t nvml_listener_backoff(int64_t cur_ns);

struct nvml_listener; /* opaque: the thread and its state */

/* Start the listener thread for ngpus GPUs (at most VIGIL_MAX_GPUS) whose handles
 * are handles[slot] (NULL: not acquired yet; left out until set). lib is borrowed and
 * must stay loaded and initialised until nvml_listener_stop() returns. A library
 * without nvmlEventSetCreate, nvmlDeviceRegisterEvents or an event wait gives
 * -ENOTSUP. action_wanted (NULL: none) picks the events whose recovery action is read.
 * types: the NVML_EVENT_* bits to listen for, of NVML_LISTENER_TYPES (0: all of them),
 * each GPU registering those it supports.
 * 0 or -errno; *ret is the caller's, ended with nvml_listener_stop(). */
int nvml_listener_start(struct nvml_listener **ret, const struct nvml_lib *lib, unsigned ngpus,
                        const nvmlDevice_t handles[], size_t queue_cap,
                        nvml_action_wanted_fn action_wanted, unsigned long long types);

/* Main loop: GPU slot's handle was (re)acquired: register it again, interrupting the
 * thread's wait. */
void nvml_listener_set_handle(struct nvml_listener *l, unsigned slot, nvmlDevice_t handle);

/* Main loop, each GPU tick: while a handle waits to be registered and the thread is in
 * its wait, interrupt the wait again (an interruption that came just before the thread
 * entered the wait is lost). One atomic load when nothing waits; accepts NULL. */
void nvml_listener_nudge(struct nvml_listener *l);

/* Main loop: up to cap queued events into out, oldest first; returns how many. */
size_t nvml_listener_drain(struct nvml_listener *l, struct nvml_event *out, size_t cap);

/* Events dropped because the queue was full, and times the set was rebuilt after a
 * failure. */
uint64_t nvml_listener_dropped(struct nvml_listener *l);
uint64_t nvml_listener_restarts(struct nvml_listener *l);

/* Main loop: the oldest note of the thread ("event listener started: gpu0 mask=0xc01f",
 * "event wait failed: GPU is lost; restarting in 1 s") into out (cap bytes); false
 * when there is none. *ret_warn tells a failure from an informational note. Notes past
 * NVML_LISTENER_NOTES unread are dropped (the restarts are still counted). */
bool nvml_listener_take_note(struct nvml_listener *l, char *out, size_t cap, bool *ret_warn);

/* The signal that interrupts the listener's wait: SIGRTMIN + 1, which nothing else in
 * vigil uses (the daemon handles SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2). */
int nvml_listener_signal(void);

/* Stop the thread, interrupting its wait, and join it; free the event set and
 * everything else; accepts NULL (true). Events still queued are discarded: drain them
 * first. False when the thread did not end within NVML_LISTENER_STOP_NS (a driver call
 * that ignores the interruption): it is left running with what it uses, and NVML must
 * not be shut down under it. */
bool nvml_listener_stop(struct nvml_listener *l);

#endif
