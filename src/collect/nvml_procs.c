/* SPDX-License-Identifier: Apache-2.0 */
/* The processes on a GPU. See nvml_procs.h. NVML answers, per type, e.g.
 *   count 2: {pid 4242, usedGpuMemory 8589934592, gpuInstanceId ~0, computeInstanceId ~0}, ... */
#include "collect/nvml_procs.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/parse.h"
#include "util/pfile.h"
#include "util/hot.h"

#define QUERY_MARGIN 8 /* room for processes that start between the two calls */

static void append(struct gpu_proc_list *out, const nvmlProcessInfo_t *infos, unsigned n,
                   enum gpu_proc_type type)
{
        for (unsigned i = 0; i < n && out->n < VIGIL_GPU_PROCS_MAX; i++) {
                struct gpu_proc *p = &out->p[out->n++];
                memset(p, 0, sizeof(*p));
                p->pid = infos[i].pid;
                p->type = (uint8_t)type;
                p->used_bytes = infos[i].usedGpuMemory == NVML_VALUE_NOT_AVAILABLE_ULL
                                    ? NAN
                                    : (double)infos[i].usedGpuMemory;
        }
}

VIGIL_HOT nvmlReturn_t nvml_procs_query(nvmlReturn_t (*fn)(nvmlDevice_t, unsigned int *,
                                                           nvmlProcessInfo_t *),
                                        nvmlDevice_t dev, enum gpu_proc_type type,
                                        struct gpu_proc_list *out)
{
        nvmlProcessInfo_t infos[NVML_PROCS_QUERY_MAX];
        if (!fn)
                return NVML_ERROR_FUNCTION_NOT_FOUND;
        unsigned need = 0;
        nvmlReturn_t r = fn(dev, &need, NULL);
        if (r == NVML_SUCCESS) {
                out->supported[type] = true;
                out->count[type] = 0;
                return r;
        }
        /* Two tries: the count can grow between the calls (more processes started). */
        for (int attempt = 0; r == NVML_ERROR_INSUFFICIENT_SIZE && attempt < 2; attempt++) {
                unsigned want = need > NVML_PROCS_QUERY_MAX - QUERY_MARGIN ? NVML_PROCS_QUERY_MAX
                                                                           : need + QUERY_MARGIN;
                unsigned got = want;
                r = fn(dev, &got, infos);
                if (r == NVML_SUCCESS) {
                        got = got < want ? got : want;
                        append(out, infos, got, type);
                        out->supported[type] = true;
                        out->count[type] = got;
                        return r;
                }
                /* NVML says how many now; a driver that left the count alone gets
                         * a larger margin. */
                if (r == NVML_ERROR_INSUFFICIENT_SIZE)
                        need = got > want ? got : want + QUERY_MARGIN;
        }
        if (r != NVML_ERROR_INSUFFICIENT_SIZE)
                return r;
        /* More than the query can hold: counted, not listed. */
        out->supported[type] = true;
        out->count[type] = need;
        return NVML_SUCCESS;
}

/* cmdline: NUL-separated arguments; as one line, printable. */
static void clean_cmdline(char *s, size_t n)
{
        while (n > 0 && s[n - 1] == '\0')
                n--;
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char)s[i];
                if (c == '\0')
                        s[i] = ' ';
                else if (c < 0x20 || c == 0x7f)
                        s[i] = '?';
        }
        s[n] = '\0';
}

/* A pod's "namespace/name" from the node's pod log directories, root/var/log/pods/
 * <namespace>_<name>_<uid>/ (core/workload.h); left "" when none is there. */
static void pod_name(const char *root, struct workload *w)
{
        char dir[4096];
        if (path_join(dir, sizeof(dir), root, "/var/log/pods") < 0)
                return;
        DIR *d = opendir(dir);
        if (!d)
                return;
        for (struct dirent *e; (e = readdir(d));)
                if (workload_pod_dir_matches(w, e->d_name))
                        break;
        closedir(d);
}

/* The workload of process pid from root/proc/PID/cgroup. */
static void proc_workload(const char *root, uint32_t pid, struct workload *w)
{
        char path[64], buf[4096];
        snprintf(path, sizeof(path), "/proc/%u/cgroup", pid);
        int n = read_file_at(root, path, buf, sizeof(buf));
        memset(w, 0, sizeof(*w));
        if (n <= 0)
                return;
        workload_from_cgroup(buf, (size_t)n, w);
        if (w->kind == WL_POD)
                pod_name(root, w);
}

VIGIL_HOT void gpu_procs_fill_names(const char *root, struct gpu_proc_list *l)
{
        char path[64], buf[VIGIL_GPU_PROC_CMDLN];
        for (unsigned i = 0; i < l->n && i < VIGIL_GPU_PROCS_MAX; i++) {
                struct gpu_proc *p = &l->p[i];
                p->name[0] = p->cmdline[0] = '\0';
                snprintf(path, sizeof(path), "/proc/%u/comm", p->pid);
                int n = read_line_at(root, path, buf, sizeof(p->name));
                if (n > 0) {
                        clean_cmdline(buf, (size_t)n);
                        copy_bounded(p->name, sizeof(p->name), buf, strlen(buf));
                }
                snprintf(path, sizeof(path), "/proc/%u/cmdline", p->pid);
                n = read_file_at(root, path, buf, sizeof(buf));
                if (n > 0) {
                        clean_cmdline(buf, (size_t)n);
                        copy_bounded(p->cmdline, sizeof(p->cmdline), buf, strlen(buf));
                }
                proc_workload(root, p->pid, &p->work);
        }
}
