/* SPDX-License-Identifier: Apache-2.0 */
/* The simulated NVML's state: initialisation, the per-GPU timelines, the call log and
 * stalls, and the entry points that are about the library rather than a device. */
#include "sim.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct sim sim = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .log_fd = -1,
};

void sim_log(const char *fn, int gpu)
{
        char line[128];
        int n;
        if (sim.log_fd < 0)
                return;
        if (gpu >= 0)
                n = snprintf(line, sizeof(line), "%s %d\n", fn, gpu);
        else
                n = snprintf(line, sizeof(line), "%s\n", fn);
        if (n > 0 && (size_t)n < sizeof(line) && write(sim.log_fd, line, (size_t)n) < 0)
                return; /* a test log; nothing to do about a failed write */
}

/* ---- Timeline ------------------------------------------------------------------- */

static void apply_op(struct sim_gpu *g, const struct sim_op *op)
{
        struct sim_value *v = op->kind <= OP_FAIL ? &g->v[op->field] : NULL;
        switch (op->kind) {
        case OP_SET:
                v->val = op->val;
                v->has = true;
                v->ramping = false;
                break;
        case OP_RAMP:
                v->from = v->has ? v->val : op->val;
                v->to = op->val;
                v->start = g->step;
                v->len = op->arg;
                v->val = v->from;
                v->has = true;
                v->ramping = true;
                break;
        case OP_FAIL:
                v->err = (int)op->val;
                break;
        case OP_EVENT:
                sim_events_fire(g->index, op->type, (unsigned long long)op->val, op->arg);
                break;
        case OP_LOST:
                g->lost = true;
                sim_wake_waiters();
                break;
        case OP_RECOVERED:
                g->lost = false;
                break;
        case OP_STALL:
                g->stall_armed = true;
                g->stall_ms = (unsigned)op->val;
                break;
        case OP_WAIT_ERROR:
                sim.wait_error_code = (int)op->val;
                sim.wait_errors += op->arg;
                sim_wake_waiters();
                break;
        }
}

static void update_ramps(struct sim_gpu *g)
{
        for (int f = 0; f < F_COUNT; f++) {
                struct sim_value *v = &g->v[f];
                if (!v->ramping)
                        continue;
                uint64_t done = g->step - v->start;
                if (done >= v->len) {
                        v->val = v->to;
                        v->ramping = false;
                        continue;
                }
                double x =
                    (double)v->from + (double)(v->to - v->from) * (double)done / (double)v->len;
                v->val = (int64_t)llround(x);
        }
}

void sim_apply_timeline(struct sim_gpu *g)
{
        while (g->next < g->nops && g->ops[g->next].step <= g->step)
                apply_op(g, &g->ops[g->next++]);
        update_ramps(g);
}

/* One sample of g: the next step of its timeline. */
static void advance(struct sim_gpu *g)
{
        g->step++;
        sim_apply_timeline(g);
}

/* ---- Device calls --------------------------------------------------------------- */

struct sim_gpu *sim_gpu_of(nvmlDevice_t dev)
{
        struct sim_gpu *g = (struct sim_gpu *)(void *)dev;
        for (unsigned i = 0; i < sim.ngpus; i++)
                if (g == &sim.gpu[i])
                        return g;
        return NULL;
}

static void sleep_ms(unsigned ms)
{
        struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

/* Initialised, and dev a handle of this scenario's GPUs; *g that GPU or NULL. */
static nvmlReturn_t check_device(nvmlDevice_t dev, struct sim_gpu **g)
{
        *g = sim.refcount ? sim_gpu_of(dev) : NULL;
        if (!sim.refcount)
                return NVML_ERROR_UNINITIALIZED;
        return *g ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

nvmlReturn_t sim_enter(nvmlDevice_t dev, const char *fn, bool sample, struct sim_gpu **ret_gpu)
{
        struct sim_gpu *g;
        pthread_mutex_lock(&sim.lock);
        nvmlReturn_t r = check_device(dev, &g);
        sim_log(fn, g ? (int)g->index : -1);
        if (r == NVML_SUCCESS && g->stall_armed) {
                unsigned ms = g->stall_ms;
                g->stall_armed = false;
                pthread_mutex_unlock(&sim.lock);
                sleep_ms(ms);
                pthread_mutex_lock(&sim.lock);
                r = check_device(dev, &g); /* the client may have shut down meanwhile */
        }
        if (r == NVML_SUCCESS && sample)
                advance(g);
        if (r == NVML_SUCCESS && g->lost)
                r = NVML_ERROR_GPU_IS_LOST;
        if (r != NVML_SUCCESS) {
                pthread_mutex_unlock(&sim.lock);
                return r;
        }
        *ret_gpu = g;
        return NVML_SUCCESS;
}

void sim_leave(void)
{
        pthread_mutex_unlock(&sim.lock);
}

nvmlReturn_t sim_get(const struct sim_gpu *g, int field, int64_t *out)
{
        const struct sim_value *v = &g->v[field];
        if (!out)
                return NVML_ERROR_INVALID_ARGUMENT;
        if (v->err)
                return v->err;
        if (!v->has)
                return NVML_ERROR_NOT_SUPPORTED;
        *out = v->val;
        return NVML_SUCCESS;
}

/* ---- Library -------------------------------------------------------------------- */

/* Load the scenario unless this one is loaded already: a GPU's timeline survives a
 * client's nvmlShutdown/nvmlInit, as a real GPU does not go back in time. */
static nvmlReturn_t load(const char *path)
{
        char err[512];
        if (sim.loaded && strcmp(sim.path, path) == 0)
                return NVML_SUCCESS;
        sim.loaded = false;
        if (strlen(path) >= sizeof(sim.path) || scenario_load(&sim, path, err, sizeof(err)) < 0) {
                if (strlen(path) >= sizeof(sim.path))
                        snprintf(err, sizeof(err), "scenario path too long");
                fprintf(stderr, "nvml-sim: %s\n", err);
                return NVML_ERROR_UNKNOWN;
        }
        snprintf(sim.path, sizeof(sim.path), "%s", path);
        sim.loaded = true;
        for (unsigned i = 0; i < sim.ngpus; i++)
                sim_apply_timeline(&sim.gpu[i]);
        return NVML_SUCCESS;
}

static nvmlReturn_t init(const char *fn)
{
        nvmlReturn_t r = NVML_SUCCESS;
        pthread_mutex_lock(&sim.lock);
        if (sim.refcount == 0) {
                const char *path = getenv("VIGIL_NVML_SCENARIO");
                if (!path || !*path) {
                        fprintf(stderr, "nvml-sim: VIGIL_NVML_SCENARIO is not set\n");
                        r = NVML_ERROR_DRIVER_NOT_LOADED;
                } else {
                        r = load(path);
                }
                if (r == NVML_SUCCESS && sim.init_error)
                        r = sim.init_error;
                const char *log = getenv("VIGIL_NVML_SIM_LOG");
                if (r == NVML_SUCCESS && log && *log)
                        sim.log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        }
        if (r == NVML_SUCCESS) {
                sim.refcount++;
                sim_log(fn, -1);
        }
        pthread_mutex_unlock(&sim.lock);
        return r;
}

nvmlReturn_t nvmlInit_v2(void)
{
        return init(__func__);
}

nvmlReturn_t nvmlInit(void)
{
        return init(__func__);
}

/* NVIDIA's Python bindings' nvmlInit() is nvmlInitWithFlags(0). The flags
 * (NVML_INIT_FLAG_NO_GPUS 1, NO_ATTACH 2) change nothing here: a scenario always has its
 * GPUs attached. */
nvmlReturn_t nvmlInitWithFlags(unsigned int flags)
{
        (void)flags;
        return init(__func__);
}

nvmlReturn_t nvmlShutdown(void)
{
        nvmlReturn_t r = NVML_SUCCESS;
        pthread_mutex_lock(&sim.lock);
        if (sim.refcount == 0) {
                r = NVML_ERROR_UNINITIALIZED;
        } else {
                sim_log(__func__, -1);
                if (--sim.refcount == 0) {
                        sim_events_release_all();
                        if (sim.log_fd >= 0)
                                close(sim.log_fd);
                        sim.log_fd = -1;
                        sim_wake_waiters();
                }
        }
        pthread_mutex_unlock(&sim.lock);
        return r;
}

/* The strings of NVIDIA's own table (DCGM sdk/nvidia/nvml/nvml_error_strings.h); codes it
 * does not list get "Unknown Error". */
const char *nvmlErrorString(nvmlReturn_t result)
{
        static const char *const str[] = {
            [NVML_SUCCESS] = "Success",
            [NVML_ERROR_UNINITIALIZED] = "Uninitialized",
            [NVML_ERROR_INVALID_ARGUMENT] = "Invalid Argument",
            [NVML_ERROR_NOT_SUPPORTED] = "Not Supported",
            [NVML_ERROR_NO_PERMISSION] = "Insufficient Permissions",
            [NVML_ERROR_ALREADY_INITIALIZED] = "Already Initialized",
            [NVML_ERROR_NOT_FOUND] = "Not Found",
            [NVML_ERROR_INSUFFICIENT_SIZE] = "Insufficient Size",
            [NVML_ERROR_INSUFFICIENT_POWER] = "Insufficient External Power",
            [NVML_ERROR_DRIVER_NOT_LOADED] = "Driver Not Loaded",
            [NVML_ERROR_TIMEOUT] = "Timeout",
            [NVML_ERROR_IRQ_ISSUE] = "Interrupt Request Issue",
            [NVML_ERROR_LIBRARY_NOT_FOUND] = "NVML Shared Library Not Found",
            [NVML_ERROR_FUNCTION_NOT_FOUND] = "Function Not Found",
            [NVML_ERROR_CORRUPTED_INFOROM] = "Corrupted infoROM",
            [NVML_ERROR_GPU_IS_LOST] = "GPU is lost",
            [NVML_ERROR_RESET_REQUIRED] = "GPU requires reset",
            [NVML_ERROR_OPERATING_SYSTEM] = "GPU access blocked by the operating system",
            [NVML_ERROR_LIB_RM_VERSION_MISMATCH] = "Driver/library version mismatch",
            [NVML_ERROR_IN_USE] = "In use by another client",
            [NVML_ERROR_MEMORY] = "Insufficient Memory",
        };
        if (result >= 0 && (size_t)result < sizeof(str) / sizeof(str[0]) && str[result])
                return str[result];
        return "Unknown Error";
}

static nvmlReturn_t put_string(char *out, unsigned int length, const char *s)
{
        size_t n = strlen(s);
        if (!out)
                return NVML_ERROR_INVALID_ARGUMENT;
        if (length < n + 1)
                return NVML_ERROR_INSUFFICIENT_SIZE;
        memcpy(out, s, n + 1);
        return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
        pthread_mutex_lock(&sim.lock);
        nvmlReturn_t r =
            sim.refcount ? put_string(version, length, sim.driver) : NVML_ERROR_UNINITIALIZED;
        sim_log(__func__, -1);
        pthread_mutex_unlock(&sim.lock);
        return r;
}

static nvmlReturn_t get_count(const char *fn, unsigned int *count)
{
        pthread_mutex_lock(&sim.lock);
        nvmlReturn_t r = !sim.refcount ? NVML_ERROR_UNINITIALIZED
                         : !count      ? NVML_ERROR_INVALID_ARGUMENT
                                       : NVML_SUCCESS;
        if (r == NVML_SUCCESS)
                *count = sim.ngpus;
        sim_log(fn, -1);
        pthread_mutex_unlock(&sim.lock);
        return r;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
        return get_count(__func__, deviceCount);
}

nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount)
{
        return get_count(__func__, deviceCount);
}

/* A lost GPU has no handle (nvidia-smi: "Unable to determine the device handle for GPU
 * ...: GPU is lost"); asking for it counts as a sample of it, so a client that
 * re-acquires handles still moves its timeline towards recovery. */
static nvmlReturn_t get_handle(const char *fn, unsigned int index, nvmlDevice_t *device)
{
        pthread_mutex_lock(&sim.lock);
        nvmlReturn_t r = !sim.refcount                   ? NVML_ERROR_UNINITIALIZED
                         : !device || index >= sim.ngpus ? NVML_ERROR_INVALID_ARGUMENT
                                                         : NVML_SUCCESS;
        sim_log(fn, r == NVML_SUCCESS ? (int)index : -1);
        if (r == NVML_SUCCESS && sim.gpu[index].lost) {
                advance(&sim.gpu[index]);
                if (sim.gpu[index].lost)
                        r = NVML_ERROR_GPU_IS_LOST;
        }
        if (r == NVML_SUCCESS)
                *device = (nvmlDevice_t)(void *)&sim.gpu[index];
        pthread_mutex_unlock(&sim.lock);
        return r;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
        return get_handle(__func__, index, device);
}

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device)
{
        return get_handle(__func__, index, device);
}

/* ---- Identity strings ------------------------------------------------------------ */

static nvmlReturn_t get_string(nvmlDevice_t dev, const char *fn, size_t offset, char *out,
                               unsigned int length)
{
        struct sim_gpu *g;
        nvmlReturn_t r = sim_enter(dev, fn, false, &g);
        if (r != NVML_SUCCESS)
                return r;
        const char *s = (const char *)g + offset;
        r = *s ? put_string(out, length, s) : NVML_ERROR_NOT_SUPPORTED;
        sim_leave();
        return r;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
        return get_string(device, __func__, offsetof(struct sim_gpu, name), name, length);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
        return get_string(device, __func__, offsetof(struct sim_gpu, uuid), uuid, length);
}

nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char *serial, unsigned int length)
{
        return get_string(device, __func__, offsetof(struct sim_gpu, serial), serial, length);
}

nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t device, char *version, unsigned int length)
{
        return get_string(device, __func__, offsetof(struct sim_gpu, vbios), version, length);
}
