/* SPDX-License-Identifier: Apache-2.0 */
/* Snapshot sections built from the evidence collectors, so every snapshot writer
 * (GPU crash and spike, crash follow-ups, Raspberry Pi incidents) words them the
 * same way: the kernel log ring (collect/kmsg.h), PCIe state from sysfs
 * (collect/pcie.h), the GPU flight recorder (core/ring.h) and external programs
 * (util/spawn.h). Each function writes one or more "=== Title ===" sections into an
 * open snapshot and needs no other state. They run on the thread that owns the
 * snapshot; evidence_program() blocks for up to its time limit. */
#ifndef VIGIL_DETECT_EVIDENCE_H
#define VIGIL_DETECT_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "collect/kmsg.h"
#include "core/frame.h"
#include "core/gpu_procs.h"
#include "core/ring.h"
#include "detect/snapshot.h"

#define EVIDENCE_PCIE_TITLE "PCIe state (sysfs)"

/* Drain the kernel log (k may be NULL: "not collected") so the newest lines are in,
 * then one section per filter, titled kmsg_filters[f].title, in the order given. */
void evidence_kernel_log(struct snapshot *s, struct kmsg *k, const enum kmsg_filter *filters,
                         size_t n);

/* Section EVIDENCE_PCIE_TITLE: the GPU at NVML bus id bus_id and its upstream port,
 * read under root ("" or NULL: /). */
void evidence_pcie(struct snapshot *s, const char *root, const char *bus_id);

/* Section title: the flight recorder's samples as CSV, oldest first, streamed through
 * a small buffer. */
void evidence_ring(struct snapshot *s, const char *title, const struct gpu_ring *r);

/* Section title: what argv prints (stdout and stderr), run without a shell for at
 * most timeout_ns (see spawn_capture for the notes it adds). Returns the pid of a
 * child that outlived SIGKILL (pass it to spawn_reap() later), or 0. */
pid_t evidence_program(struct snapshot *s, const char *title, const char *const argv[],
                       int64_t timeout_ns);

/* Section "GPU processes": the GPU's last process list (l may be NULL or not valid:
 * "(not recorded)"), when it was taken relative to now_real_ns and why. A GPU that
 * stopped answering keeps the list taken before it did. */
void evidence_gpu_procs(struct snapshot *s, const struct gpu_proc_list *l, int64_t now_real_ns);

/* Section "NVLink and fabric": the last values read of GPU g (the slow cadence's):
 * each link's state and error counters, one line a link, and the fabric's probe state,
 * status, clique and health faults; "(no NVLink)" / "(no fabric)" where the GPU has
 * none. */
void evidence_nvlink(struct snapshot *s, const struct gpu_frame *g);

/* Write a crash follow-up snapshot d (see snapshot_followups_due) under log_dir:
 * crashes/<d->name>.log with header h (its title is the caller's, e.g.
 * "GPU CRASH FOLLOW-UP (+10s)"), a "Follow-up of: <crash>" line, then the GPU's
 * last process list (procs; NULL: no such section), the PCIe state of bus_id and the
 * kernel log's GPU and AER lines. ret_path as in
 * snapshot_commit. 0 or -errno. */
int evidence_followup(const char *log_dir, const struct snapshot_followup_due *d,
                      const struct snapshot_header *h, struct kmsg *k, const char *root,
                      const char *bus_id, const struct gpu_proc_list *procs, char *ret_path,
                      size_t cap);

#endif
