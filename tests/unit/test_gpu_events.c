/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the NVML event queue and listener (collect/nvml_events.c, against a
 * scripted fake NVML) and the event detector's pure parts (detect/gpu_event_text.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "collect/nvml_events.h"
#include "detect/gpu_events.h"
#include "metrics/metrics.h"
#include "detect/snapshot.h"
#include "util/clock.h"

#define MS (1000 * 1000LL)

/* ---- the queue ---- */

static struct nvml_event ev(unsigned slot, unsigned long long type, unsigned long long data)
{
        struct nvml_event e = {.slot = slot, .type = type, .data = data};
        return e;
}

static void test_queue_order_and_drops(void **state)
{
        (void)state;
        struct nvml_evq q;
        struct nvml_event out[8];
        assert_int_equal(nvml_evq_init(&q, 0), -EINVAL);
        assert_int_equal(nvml_evq_init(&q, NVML_EVQ_MAX_CAP + 1), -EINVAL);
        assert_int_equal(nvml_evq_init(&q, 4), 0);
        for (unsigned i = 0; i < 6; i++) {
                struct nvml_event e = ev(0, NVML_EVENT_XID_CRITICAL_ERROR, 100 + i);
                assert_int_equal(nvml_evq_push(&q, &e), i < 4);
        }
        assert_int_equal(nvml_evq_dropped(&q), 2);
        assert_int_equal(q.pushed, 4);
        /* Oldest first, at most cap per pop. */
        assert_int_equal(nvml_evq_pop(&q, out, 3), 3);
        assert_int_equal(out[0].data, 100);
        assert_int_equal(out[2].data, 102);
        /* Wrap around the end of the ring. */
        for (unsigned i = 0; i < 3; i++) {
                struct nvml_event e = ev(1, NVML_EVENT_PSTATE, 200 + i);
                assert_true(nvml_evq_push(&q, &e));
        }
        assert_int_equal(nvml_evq_pop(&q, out, 8), 4);
        assert_int_equal(out[0].data, 103);
        assert_int_equal(out[1].data, 200);
        assert_int_equal(out[3].data, 202);
        assert_int_equal(out[3].slot, 1);
        assert_int_equal(nvml_evq_pop(&q, out, 8), 0);
        /* Every event either arrived or was counted as dropped. */
        assert_int_equal(q.pushed + nvml_evq_dropped(&q), 9);
        nvml_evq_fini(&q);
        nvml_evq_fini(&q); /* twice is harmless */
}

static void test_backoff(void **state)
{
        (void)state;
        int64_t b = 0;
        const int64_t want[] = {1, 2, 4, 8, 16, 32, 60, 60};
        for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
                b = nvml_listener_backoff(b);
                assert_int_equal(b, want[i] * NSEC_PER_SEC);
        }
}

/* ---- Clock bursts ---- */

static void test_clock_burst(void **state)
{
        (void)state;
        struct clock_burst b = {0};
        int64_t t = 5 * NSEC_PER_SEC;
        /* Ten in well under a second: the tenth is the burst, and only the tenth. */
        for (unsigned i = 1; i <= 25; i++)
                assert_int_equal(clock_burst_add(&b, t + i * 10 * MS), i == 10);
        /* A new window more than 1 s after the last one opened: counting starts over. */
        t += 2 * NSEC_PER_SEC;
        for (unsigned i = 1; i <= 10; i++)
                assert_int_equal(clock_burst_add(&b, t + i * MS), i == 10);
        /* Nine in one window, then a tenth 1.2 s after it opened: no burst. */
        t += 5 * NSEC_PER_SEC;
        for (unsigned i = 0; i < 9; i++)
                assert_false(clock_burst_add(&b, t + i * MS));
        assert_false(clock_burst_add(&b, t + 1200 * MS));
        assert_int_equal(b.count, 1);
        /* Exactly 1 s after the start still belongs to the window. */
        struct clock_burst c = {0};
        for (unsigned i = 0; i < 9; i++)
                clock_burst_add(&c, t);
        assert_true(clock_burst_add(&c, t + NSEC_PER_SEC));
}

/* ---- names, lines and counters ---- */

static void test_names_and_lines(void **state)
{
        (void)state;
        char buf[512];
        struct strbuf sb;
        struct nvml_event e = ev(0, NVML_EVENT_XID_CRITICAL_ERROR, 79);
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_event_names(&sb, &e);
        assert_string_equal(buf, "Xid(79)");
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_event_line(&sb, 3, &e);
        assert_string_equal(buf, "type=NVML_EVENT gpu=3 event=Xid(79) mask=0x0008 data=79 xid=79 "
                                 "class=reboot meaning=\"GPU has fallen off the bus\" "
                                 "action=\"reboot the machine; if it repeats, check the PCIe slot "
                                 "and riser, the power supply and cooling\" severity=critical "
                                 "nvidia_action=RESTART_BM");
        e = ev(0, NVML_EVENT_XID_CRITICAL_ERROR, 999);
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_event_line(&sb, 0, &e);
        assert_string_equal(buf, "type=NVML_EVENT gpu=0 event=Xid(999) mask=0x0008 data=999 "
                                 "xid=999 meaning=\"not in NVIDIA's Xid catalog\"");
        e = ev(0, NVML_EVENT_GPU_RECOVERY_ACTION, 1);
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_event_line(&sb, 0, &e);
        /* Without field 230 (an older driver), eventData is the fallback, and says so. */
        assert_string_equal(buf, "type=NVML_EVENT gpu=0 event=GpuRecovery mask=0x8000 data=1 "
                                 "recovery_action=GPU_RESET source=eventData");
        /* Field 230 read: its value, not eventData (0 for every event but Xid). */
        e = ev(0, NVML_EVENT_GPU_RECOVERY_ACTION, 0);
        e.action_read = true;
        e.action = NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET;
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_event_line(&sb, 0, &e);
        assert_string_equal(buf, "type=NVML_EVENT gpu=0 event=GpuRecovery mask=0x8000 data=0 "
                                 "recovery_action=DRAIN_AND_RESET");
        e.action = 5;
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_event_story(&sb, &e);
        assert_string_equal(buf, "GpuRecovery recovery action RECOVER_IMEX_DOMAIN");
        e.action = 6;
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_event_story(&sb, &e);
        assert_string_equal(buf, "GpuRecovery recovery action unknown(6)");
        /* An Xid on stderr: its meaning and action, and the recovery action read after it. */
        e = ev(0, NVML_EVENT_XID_CRITICAL_ERROR, 119);
        e.action_read = true;
        e.action = NVML_GPU_RECOVERY_ACTION_GPU_RESET;
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_event_story(&sb, &e);
        assert_string_equal(buf, "Xid(119) (Xid 119: GSP RPC timeout; action: reset the GPU "
                                 "(nvidia-smi -r) or reboot) recovery action GPU_RESET");
        /* Which events the listener reads field 230 for. */
        assert_true(gpu_event_wants_action(NVML_EVENT_GPU_RECOVERY_ACTION, 0));
        assert_true(gpu_event_wants_action(NVML_EVENT_XID_CRITICAL_ERROR, 79));
        assert_true(gpu_event_wants_action(NVML_EVENT_XID_CRITICAL_ERROR, 119));
        assert_true(gpu_event_wants_action(NVML_EVENT_XID_CRITICAL_ERROR, 154));
        assert_false(gpu_event_wants_action(NVML_EVENT_XID_CRITICAL_ERROR, 13));
        /* NVIDIA's reset-class codes (46, 151, 171), and the NVLink-5 errors, whose fatal
         * ones change the recovery action; not an IGNORE one (63). */
        assert_true(gpu_event_wants_action(NVML_EVENT_XID_CRITICAL_ERROR, 46));
        assert_true(gpu_event_wants_action(NVML_EVENT_XID_CRITICAL_ERROR, 151));
        assert_true(gpu_event_wants_action(NVML_EVENT_XID_CRITICAL_ERROR, 171));
        assert_true(gpu_event_wants_action(NVML_EVENT_XID_CRITICAL_ERROR, 149));
        assert_false(gpu_event_wants_action(NVML_EVENT_XID_CRITICAL_ERROR, 63));
        assert_false(gpu_event_wants_action(NVML_EVENT_XID_CRITICAL_ERROR, 1ULL << 40));
        assert_false(gpu_event_wants_action(NVML_EVENT_PSTATE, 0));
        e = ev(0, NVML_EVENT_PSTATE | NVML_EVENT_CLOCK | 0x40000, 0);
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_event_names(&sb, &e);
        assert_string_equal(buf, "PState|Clock|0x40000");
        e = ev(0, 0, 0);
        sb_init_fixed(&sb, buf, sizeof(buf));
        gpu_event_names(&sb, &e);
        assert_string_equal(buf, "0x0000");
}

static void test_classes_and_counters(void **state)
{
        (void)state;
        unsigned idx[GPU_EV_COUNT];
        assert_true(gpu_event_is_critical(NVML_EVENT_XID_CRITICAL_ERROR));
        assert_true(gpu_event_is_critical(NVML_EVENT_GPU_RECOVERY_ACTION));
        assert_true(gpu_event_is_critical(NVML_EVENT_GPU_UNAVAILABLE_ERROR));
        assert_false(gpu_event_is_critical(NVML_EVENT_PSTATE | NVML_EVENT_CLOCK));
        assert_false(gpu_event_is_critical(NVML_EVENT_DOUBLE_BIT_ECC));
        assert_true(gpu_event_is_clock_only(NVML_EVENT_CLOCK));
        assert_false(gpu_event_is_clock_only(NVML_EVENT_CLOCK | NVML_EVENT_PSTATE));
        struct nvml_event e = ev(0, NVML_EVENT_SINGLE_BIT_ECC | NVML_EVENT_DOUBLE_BIT_ECC, 0);
        assert_int_equal(gpu_event_counters(&e, idx), 2);
        assert_string_equal(gpu_event_type_names[idx[0]], "single_bit_ecc");
        assert_string_equal(gpu_event_type_names[idx[1]], "double_bit_ecc");
        e = ev(0, NVML_EVENT_GPU_UNAVAILABLE_ERROR, 0);
        assert_int_equal(gpu_event_counters(&e, idx), 1);
        assert_string_equal(gpu_event_type_names[idx[0]], "gpu_unavailable");
        struct counters x;
        counters_clear(&x);
        assert_int_equal(counters_add_event(&x, 2, GPU_EV_XID), 0);
        assert_int_equal(counters_add_event(&x, VIGIL_MAX_GPUS, GPU_EV_XID), -EINVAL);
        assert_int_equal(counters_add_event(&x, 0, GPU_EV_COUNT), -EINVAL);
        assert_int_equal(x.gpus[2].events[GPU_EV_XID], 1);
}

/* The crash follow-up schedule the detector arms: +10, +60 and +300 s. */
static void test_followup_schedule(void **state)
{
        (void)state;
        struct snapshot_followups f;
        struct snapshot_followup_due due[4];
        memset(&f, 0, sizeof(f));
        int64_t t0 = 100 * NSEC_PER_SEC;
        snapshot_followups_arm(&f, 1, t0, "/x/crashes/crash-20261202-120000.log");
        assert_int_equal(snapshot_followups_next(&f), t0 + 10 * NSEC_PER_SEC);
        assert_int_equal(snapshot_followups_due(&f, t0 + 9 * NSEC_PER_SEC, due, 4), 0);
        assert_int_equal(snapshot_followups_due(&f, t0 + 10 * NSEC_PER_SEC, due, 4), 1);
        assert_int_equal(due[0].tag, 1);
        assert_string_equal(due[0].name, "crash-20261202-120000-followup-10s");
        assert_int_equal(snapshot_followups_due(&f, t0 + 301 * NSEC_PER_SEC, due, 4), 2);
        assert_int_equal(due[0].delay_s, 60);
        assert_int_equal(due[1].delay_s, 300);
        assert_int_equal(snapshot_followups_next(&f), 0);
}

/* ---- the listener against a scripted fake NVML ---- */

struct step {
        nvmlReturn_t r;
        unsigned long long type, data;
        int dev; /* index into fake.devs */
};

static struct {
        pthread_mutex_t lock;
        const struct step *script;
        size_t len, pos;
        unsigned creates, frees, create_failures;
        unsigned long long registered[2];
        nvmlReturn_t register_result[2]; /* what registering device i answers */
        int devs[2];
        bool long_wait; /* no event: sleep the whole timeout, as NVML does */
        unsigned waits, interrupted;
        unsigned last_timeout_ms;
} fake = {.lock = PTHREAD_MUTEX_INITIALIZER};

static nvmlDevice_t dev_handle(int i)
{
        return (nvmlDevice_t)(void *)&fake.devs[i];
}

static int dev_index(nvmlDevice_t d)
{
        return d == dev_handle(0) ? 0 : d == dev_handle(1) ? 1 : -1;
}

static nvmlReturn_t fake_create(nvmlEventSet_t *set)
{
        pthread_mutex_lock(&fake.lock);
        nvmlReturn_t r = NVML_SUCCESS;
        if (fake.create_failures) {
                fake.create_failures--;
                r = NVML_ERROR_UNINITIALIZED;
        } else {
                fake.creates++;
                *set = (nvmlEventSet_t)(void *)&fake;
                fake.registered[0] = fake.registered[1] = 0;
        }
        pthread_mutex_unlock(&fake.lock);
        return r;
}

static nvmlReturn_t fake_free(nvmlEventSet_t set)
{
        (void)set;
        pthread_mutex_lock(&fake.lock);
        fake.frees++;
        pthread_mutex_unlock(&fake.lock);
        return NVML_SUCCESS;
}

static nvmlReturn_t fake_supported(nvmlDevice_t d, unsigned long long *types)
{
        (void)d;
        *types = 0xc09f; /* as the simulator's scenarios: power source too */
        return NVML_SUCCESS;
}

static nvmlReturn_t fake_register(nvmlDevice_t d, unsigned long long types, nvmlEventSet_t set)
{
        (void)set;
        int i = dev_index(d);
        pthread_mutex_lock(&fake.lock);
        nvmlReturn_t r = i < 0 ? NVML_ERROR_INVALID_ARGUMENT : fake.register_result[i];
        if (r == NVML_SUCCESS)
                fake.registered[i] = types;
        pthread_mutex_unlock(&fake.lock);
        return r;
}

static nvmlReturn_t fake_wait(nvmlEventSet_t set, nvmlEventData_t *data, unsigned timeout_ms)
{
        (void)set;
        (void)timeout_ms;
        pthread_mutex_lock(&fake.lock);
        if (fake.pos < fake.len) {
                const struct step *s = &fake.script[fake.pos++];
                data->device = dev_handle(s->dev);
                data->eventType = s->type;
                data->eventData = s->data;
                pthread_mutex_unlock(&fake.lock);
                return s->r;
        }
        bool long_wait = fake.long_wait;
        fake.waits++;
        fake.last_timeout_ms = timeout_ms;
        pthread_mutex_unlock(&fake.lock);
        /* The driver's wait ends early when a signal interrupts it (nvml.h); so does
         * nanosleep. */
        struct timespec ts = {0, 5 * MS};
        if (long_wait)
                ts = (struct timespec){timeout_ms / 1000, (long)(timeout_ms % 1000) * MS};
        if (nanosleep(&ts, NULL) < 0 && errno == EINTR) {
                pthread_mutex_lock(&fake.lock);
                fake.interrupted++;
                pthread_mutex_unlock(&fake.lock);
        }
        return NVML_ERROR_TIMEOUT;
}

static void fake_reset(const struct step *script, size_t len)
{
        pthread_mutex_lock(&fake.lock);
        fake.script = script;
        fake.len = len;
        fake.pos = 0;
        fake.creates = fake.frees = fake.create_failures = 0;
        fake.long_wait = false;
        fake.waits = fake.interrupted = fake.last_timeout_ms = 0;
        fake.register_result[0] = fake.register_result[1] = NVML_SUCCESS;
        pthread_mutex_unlock(&fake.lock);
}

static struct nvml_lib fake_lib(void)
{
        struct nvml_lib lib;
        memset(&lib, 0, sizeof(lib));
        lib.event_set_create = fake_create;
        lib.event_set_free = fake_free;
        lib.supported_event_types = fake_supported;
        lib.register_events = fake_register;
        lib.event_set_wait = fake_wait;
        return lib;
}

/* Drain until n events came (or about tries * 10 ms passed). */
static size_t collect_for(struct nvml_listener *l, struct nvml_event *out, size_t n, int tries)
{
        size_t got = 0;
        for (int i = 0; i < tries && got < n; i++) {
                got += nvml_listener_drain(l, out + got, n - got);
                struct timespec ts = {0, 10 * MS};
                nanosleep(&ts, NULL);
        }
        return got;
}

static size_t collect(struct nvml_listener *l, struct nvml_event *out, size_t n)
{
        return collect_for(l, out, n, 1000);
}

static bool has_note(struct nvml_listener *l, const char *want, bool warn)
{
        char text[NVML_LISTENER_NOTE_LEN];
        bool w, found = false;
        while (nvml_listener_take_note(l, text, sizeof(text), &w))
                if (strstr(text, want) && w == warn)
                        found = true;
        return found;
}

static void test_listener_events_and_restart(void **state)
{
        (void)state;
        static const struct step script[] = {
            {NVML_SUCCESS, NVML_EVENT_XID_CRITICAL_ERROR, 79, 0},
            {NVML_SUCCESS, NVML_EVENT_PSTATE, 0, 1},
            {NVML_ERROR_UNKNOWN, 0, 0, 0}, /* the reference would stop here for good */
            {NVML_SUCCESS, NVML_EVENT_XID_CRITICAL_ERROR, 13, 1},
        };
        struct nvml_lib lib = fake_lib();
        nvmlDevice_t handles[2] = {dev_handle(0), dev_handle(1)};
        struct nvml_listener *l;
        struct nvml_event out[8];
        fake_reset(script, 4);
        assert_int_equal(nvml_listener_start(&l, &lib, 2, handles, 16, NULL, 0), 0);
        assert_int_equal(collect(l, out, 3), 3);
        assert_int_equal(out[0].slot, 0);
        assert_int_equal(out[0].data, 79);
        assert_int_equal(out[1].slot, 1);
        assert_int_equal(out[1].type, NVML_EVENT_PSTATE);
        assert_int_equal(out[2].slot, 1);
        assert_int_equal(out[2].data, 13);
        assert_true(out[0].mono_ns > 0 && out[0].real_ns > 0);
        assert_int_equal(nvml_listener_restarts(l), 1);
        assert_int_equal(nvml_listener_dropped(l), 0);
        assert_true(has_note(l,
                             "event wait failed: Unknown Error; restarting the event listener "
                             "in 1 s",
                             true));
        nvml_listener_stop(l);
        /* The supported subset of vigil's types was registered; both sets freed. */
        assert_int_equal(fake.registered[0], NVML_LISTENER_TYPES);
        assert_int_equal(fake.creates, 2);
        assert_int_equal(fake.frees, 2);
}

static void test_listener_create_failure_and_lost_gpu(void **state)
{
        (void)state;
        static const struct step script[] = {
            {NVML_SUCCESS, NVML_EVENT_XID_CRITICAL_ERROR, 62, 0},
            {NVML_SUCCESS, NVML_EVENT_XID_CRITICAL_ERROR, 79, 1}, /* not registered: ignored */
        };
        struct nvml_lib lib = fake_lib();
        nvmlDevice_t handles[2] = {dev_handle(0), dev_handle(1)};
        struct nvml_listener *l;
        struct nvml_event out[8];
        fake_reset(script, 2);
        fake.create_failures = 1;
        fake.register_result[1] = NVML_ERROR_GPU_IS_LOST;
        assert_int_equal(nvml_listener_start(&l, &lib, 2, handles, 16, NULL, 0), 0);
        assert_int_equal(collect(l, out, 1), 1);
        assert_int_equal(out[0].data, 62);
        /* gpu1's event is not taken (the fake answers it once, right after gpu0's). */
        assert_int_equal(collect_for(l, out, 1, 20), 0);
        assert_int_equal(nvml_listener_restarts(l), 1);
        char text[NVML_LISTENER_NOTE_LEN];
        bool warn;
        assert_true(nvml_listener_take_note(l, text, sizeof(text), &warn));
        assert_true(warn);
        assert_string_equal(text, "cannot create an event set: Uninitialized; restarting the "
                                  "event listener in 1 s");
        assert_true(nvml_listener_take_note(l, text, sizeof(text), &warn));
        assert_false(warn);
        assert_string_equal(text, "event listener started: gpu0 mask=0xc01f, gpu1 not registered "
                                  "(GPU is lost)");
        /* The GPU answers again: the main loop hands its handle, it is registered. */
        pthread_mutex_lock(&fake.lock);
        fake.register_result[1] = NVML_SUCCESS;
        pthread_mutex_unlock(&fake.lock);
        nvml_listener_set_handle(l, 1, dev_handle(1));
        bool registered = false;
        for (int i = 0; i < 500 && !registered; i++) {
                struct timespec ts = {0, 10 * MS};
                nanosleep(&ts, NULL);
                pthread_mutex_lock(&fake.lock);
                registered = fake.registered[1] != 0;
                pthread_mutex_unlock(&fake.lock);
        }
        assert_true(registered);
        assert_true(has_note(l, "event listener registered: gpu1 mask=0xc01f", false));
        nvml_listener_stop(l);
        assert_int_equal(fake.frees, 1);
}

/* Until the listener is in its (long) wait, 5 s at most; gpu0, given at the start, is
 * registered before it. */
static bool in_long_wait(void)
{
        bool waiting = false;
        for (int i = 0; i < 500 && !waiting; i++) {
                struct timespec ts = {0, 10 * MS};
                nanosleep(&ts, NULL);
                pthread_mutex_lock(&fake.lock);
                waiting = fake.waits > 0;
                pthread_mutex_unlock(&fake.lock);
        }
        return waiting;
}

/* A long wait does not hold up a stop: the stop interrupts it, and the thread ends. */
static void test_listener_stop_interrupts_the_wait(void **state)
{
        (void)state;
        struct nvml_lib lib = fake_lib();
        nvmlDevice_t handles[2] = {dev_handle(0), dev_handle(1)};
        struct nvml_listener *l;
        fake_reset(NULL, 0);
        fake.long_wait = true;
        assert_int_equal(nvml_listener_start(&l, &lib, 2, handles, 16, NULL, 0), 0);
        assert_true(in_long_wait());
        /* Without the interruption the wait would run NVML_LISTENER_WAIT_MS, past the
         * stop's bound, and the stop would answer false. */
        assert_true(nvml_listener_stop(l));
        assert_int_equal(fake.last_timeout_ms, NVML_LISTENER_WAIT_MS);
        assert_true(fake.interrupted >= 1);
        assert_int_equal(fake.frees, 1);
}

/* A GPU handed over while the thread is in a long wait (one acquired again after it was
 * lost) is registered at once: the hand-over interrupts the wait, which would otherwise
 * run NVML_LISTENER_WAIT_MS, and an Xid right after the GPU came back be missed. */
static void test_listener_registers_a_new_handle_at_once(void **state)
{
        (void)state;
        struct nvml_lib lib = fake_lib();
        nvmlDevice_t handles[2] = {dev_handle(0), NULL};
        struct nvml_listener *l;
        fake_reset(NULL, 0);
        fake.long_wait = true;
        assert_int_equal(nvml_listener_start(&l, &lib, 2, handles, 16, NULL, 0), 0);
        assert_true(in_long_wait());
        assert_true(fake.registered[0] != 0);
        int64_t given = now_mono_ns();
        nvml_listener_set_handle(l, 1, dev_handle(1));
        bool registered = false;
        /* The main loop nudges each GPU tick until the thread took the handle. */
        for (int i = 0; i < 500 && !registered; i++) {
                struct timespec ts = {0, 10 * MS};
                nanosleep(&ts, NULL);
                nvml_listener_nudge(l);
                pthread_mutex_lock(&fake.lock);
                registered = fake.registered[1] != 0;
                pthread_mutex_unlock(&fake.lock);
        }
        assert_true(registered);
        /* Well inside the wait it interrupted (10 s), however slow the machine. */
        assert_true(now_mono_ns() - given < NVML_LISTENER_WAIT_MS * MS / 2);
        assert_true(fake.interrupted >= 1);
        assert_true(nvml_listener_stop(l));
}

static void test_listener_needs_the_event_api(void **state)
{
        (void)state;
        struct nvml_lib lib = fake_lib();
        struct nvml_listener *l = NULL;
        lib.event_set_wait = NULL;
        assert_int_equal(nvml_listener_start(&l, &lib, 0, NULL, 16, NULL, 0), -ENOTSUP);
        nvml_listener_stop(NULL);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_queue_order_and_drops),
            cmocka_unit_test(test_backoff),
            cmocka_unit_test(test_clock_burst),
            cmocka_unit_test(test_names_and_lines),
            cmocka_unit_test(test_classes_and_counters),
            cmocka_unit_test(test_followup_schedule),
            cmocka_unit_test(test_listener_events_and_restart),
            cmocka_unit_test(test_listener_create_failure_and_lost_gpu),
            cmocka_unit_test(test_listener_stop_interrupts_the_wait),
            cmocka_unit_test(test_listener_registers_a_new_handle_at_once),
            cmocka_unit_test(test_listener_needs_the_event_api),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
