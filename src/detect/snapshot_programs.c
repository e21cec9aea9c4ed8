/* SPDX-License-Identifier: Apache-2.0 */
/* The crash snapshot's external programs in a worker thread. See snapshot_programs.h. */
#include "detect/snapshot_programs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collect/pcie.h"
#include "core/vigil.h"
#include "detect/evidence.h"
#include "util/thread.h"
#include "util/spawn.h"
#include "util/hot.h"

void snapshot_programs_init(struct snapshot_programs *p)
{
        memset(p, 0, sizeof(*p));
        pthread_mutex_init(&p->lock, NULL);
        p->timeout_ns = SNAPSHOT_PROGRAM_TIMEOUT_NS;
}

void snapshot_programs_file_name(char *out, size_t cap, const char *crash_base)
{
        snprintf(out, cap, "%s" SNAPSHOT_PROGRAMS_SUFFIX ".log", crash_base);
}

static void *worker(void *arg)
{
        struct snapshot_programs *p = arg;
        struct snapshot *s;
        char path[sizeof(p->path)] = "";
        const char *lspci[] = {"lspci", "-vvs", p->bus_id, NULL};
        const char *smi[] = {"nvidia-smi", NULL};
        char title[64];
        int r = snapshot_open_named(&s, p->log_dir, SNAPSHOT_CRASH, p->name);
        if (r == 0) {
                snapshot_puts(s, "=== GPU CRASH: PROGRAM OUTPUT ===\n");
                snapshot_printf(s, "%s\n\n", p->title_line);
                snprintf(title, sizeof(title), "PCIe device state (lspci -vvs %s)", p->bus_id);
                p->unreaped[0] = evidence_program(s, title, lspci, p->timeout_ns);
                p->unreaped[1] = evidence_program(s, "nvidia-smi (may fail)", smi, p->timeout_ns);
                r = snapshot_commit(s, path, sizeof(path));
        }
        pthread_mutex_lock(&p->lock);
        p->result = r;
        memcpy(p->path, path, sizeof(path));
        p->done = true;
        pthread_mutex_unlock(&p->lock);
        return NULL;
}

static void reap_leftovers(struct snapshot_programs *p)
{
        for (unsigned i = 0; i < 2; i++)
                if (p->unreaped[i] > 0 && spawn_reap(p->unreaped[i]))
                        p->unreaped[i] = 0;
}

int snapshot_programs_start(struct snapshot_programs *p, const char *log_dir,
                            const char *crash_base, const char *gpu_name, const char *bus_id)
{
        int r;
        snapshot_programs_poll(p, &r, NULL, 0);
        if (p->running)
                return -EBUSY;
        reap_leftovers(p);
        int n = snprintf(p->name, sizeof(p->name), "%s" SNAPSHOT_PROGRAMS_SUFFIX, crash_base);
        if (n < 0 || (size_t)n >= sizeof(p->name) - 8 || strlen(log_dir) >= sizeof(p->log_dir))
                return -ENAMETOOLONG;
        snprintf(p->log_dir, sizeof(p->log_dir), "%s", log_dir);
        if (pcie_sysfs_name(bus_id, p->bus_id, sizeof(p->bus_id)) < 0)
                snprintf(p->bus_id, sizeof(p->bus_id), "%s", bus_id);
        snprintf(p->title_line, sizeof(p->title_line), "GPU: %s (%s)\nFor: %s.log", gpu_name,
                 bus_id, crash_base);
        p->done = false;
        r = vigil_thread_create(&p->thread, worker, p);
        if (r < 0)
                return r;
        p->running = true;
        return 0;
}

VIGIL_HOT bool snapshot_programs_poll(struct snapshot_programs *p, int *ret_result, char *ret_path,
                                      size_t cap)
{
        if (!p->running)
                return false;
        pthread_mutex_lock(&p->lock);
        bool done = p->done;
        pthread_mutex_unlock(&p->lock);
        if (!done)
                return false;
        pthread_join(p->thread, NULL);
        p->running = false;
        if (ret_result)
                *ret_result = p->result;
        if (ret_path && cap)
                snprintf(ret_path, cap, "%s", p->path);
        reap_leftovers(p);
        return true;
}

void snapshot_programs_fini(struct snapshot_programs *p)
{
        if (p->running)
                pthread_join(p->thread, NULL);
        p->running = false;
        reap_leftovers(p);
        pthread_mutex_destroy(&p->lock);
}
