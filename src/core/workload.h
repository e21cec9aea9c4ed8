/* SPDX-License-Identifier: Apache-2.0 */
/* Whose work a process is, from its cgroup path (/proc/PID/cgroup): a Kubernetes pod,
 * a Slurm job step, or a systemd unit. Kept with each GPU process (core/gpu_procs.h) for
 * the evidence (crash snapshots, the GPU_PROCESSES lines of events.log, the post-mortem
 * that reads them); never a label of a time series (one series per pod or job would
 * grow without bound).
 *
 * The layouts recognised (the innermost match wins, hierarchy 0 of cgroup v2 first):
 *   Kubernetes, kubelet's systemd cgroup driver (cgroup v2 or v1):
 *     /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<UID>.slice/
 *       cri-containerd-<ID>.scope       (also kubepods-besteffort-..., and
 *                                        kubepods-pod<UID>.slice for Guaranteed pods;
 *                                        systemd escapes the UID's '-' as '_')
 *     container scopes: cri-containerd-<ID>.scope, crio-<ID>.scope, docker-<ID>.scope
 *   Kubernetes, the cgroupfs driver:
 *     /kubepods/burstable/pod<UID>/<ID>  (/kubepods/pod<UID>/<ID> when Guaranteed)
 *   Slurm (slurmd's cgroup plugin; Slurm documentation, "Cgroup v2 plugin" and "Cgroups
 *   Guide"): v1 /slurm/uid_<UID>/job_<JOB>/step_<STEP>[/task_<N>] (or /slurm_<NODE>/...
 *   with several slurmd on one host), v2 /system.slice/slurmstepd.scope/job_<JOB>/
 *   step_<STEP>/user/task_<N>; STEP is a number, "batch", "extern" or "interactive".
 *   systemd: the innermost "*.service" (or a "*.scope" that is not a container's)
 *     component, /system.slice/foo.service, /user.slice/user-1000.slice/session-3.scope.
 * Names of pods come from the node's pod log directories, /var/log/pods/
 * <namespace>_<name>_<UID>/ (kubelet's layout; namespaces and pod names are DNS labels
 * and subdomains, without '_'), read by collect/ under --root: no API server. */
#ifndef VIGIL_CORE_WORKLOAD_H
#define VIGIL_CORE_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

enum workload_kind { WL_NONE, WL_POD, WL_SLURM, WL_UNIT };

struct workload {
        uint8_t kind;  /* enum workload_kind */
        char id[40];   /* pod UID (with '-'), Slurm job number, "" for a unit */
        char sub[24];  /* container id (12 hex), Slurm step, "" for a unit */
        char name[80]; /* "namespace/name" of a pod ("" until known), the unit */
};

/* The workload of a process whose /proc/PID/cgroup reads text[0..n). WL_NONE (all
 * empty) when no layout above matches (the root cgroup, a kernel thread, an unknown
 * layout). Never fails; every field bounded. */
void workload_from_cgroup(const char *text, size_t n, struct workload *ret);

/* Whether the directory name under /var/log/pods, "<namespace>_<name>_<uid>", is the
 * pod of w; if so its "namespace/name" goes into w->name. */
bool workload_pod_dir_matches(struct workload *w, const char *dir_name);

/* One token, no blank: "pod:ml/train-0:<uid>:<container>", "pod::<uid>:<container>"
 * (name unknown), "slurm:<job>.<step>", "unit:<unit>", or "-". For events.log (key
 * workloads=) and the process table. */
void workload_format(struct strbuf *sb, const struct workload *w);

#endif
