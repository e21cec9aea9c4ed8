/* SPDX-License-Identifier: Apache-2.0 */
/* The run state file, LOG-DIR/vigil.state: how the last run of vigil on this log
 * directory began and whether it ended cleanly. Written atomically (a temporary file,
 * fsync, rename, fsync of the directory) at start, without a stop marker, and again at
 * a clean stop, with one. At the next start the file tells how the previous run ended:
 *   stopped_ns present              the run stopped cleanly
 *   no stop marker, same boot id    vigil itself was killed or crashed
 *   no stop marker, other boot id   the machine rebooted or lost power under it
 * The boot id is the kernel's random id of this boot
 * (/proc/sys/kernel/random/boot_id, proc(5)), read under --root.
 *
 * The file (text, one key=value a line, at most RUNSTATE_MAX_BYTES):
 *   boot_id=5c1f1a8e-7a43-4d8e-9f55-0e2b1d7f6a10
 *   pid=1234
 *   started_ns=1764770000123456789
 *   stopped_ns=1764770100456000000
 *   unclean_killed=2
 *   unclean_reboot=1
 *   unclean_unknown=0
 *   last_unclean_ns=1764770000123456789
 *   gpus=2
 *   gpu_bus=0000:01:00.0,0000:41:00.0
 *   machine_id=4d3b0c0e8a7e4e2f9a1c0b5e6d7f8091
 *   hardware_id=10000000a1b2c3d4
 * gpus is the most GPUs NVML counted at any start on this log directory (absent: none
 * counted yet), the count a later start expects by default (core/gpu_count.h);
 * gpu_bus the PCI devices of the GPUs the run sampled, as the kernel names them, whose
 * kernel-log lines the post-mortem puts first; machine_id and hardware_id the machine
 * the last run started on (core/counters.h struct machine_ident): a later start with
 * the same machine_id on other hardware is a cloned disk image (runstate_cloned).
 * Unknown keys are ignored, so later versions can add some. */
#ifndef VIGIL_CORE_RUNSTATE_H
#define VIGIL_CORE_RUNSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/frame.h"
#include "util/aer_line.h"
#include "util/strbuf.h"

#define RUNSTATE_FILE      "vigil.state"
#define RUNSTATE_MAX_BYTES 8192 /* gpu_bus of VIGIL_MAX_GPUS devices included */
#define RUNSTATE_BOOT_ID   "/proc/sys/kernel/random/boot_id"
#define RUNSTATE_MAX_BUS   VIGIL_MAX_GPUS /* GPU devices recorded in gpu_bus */
#define RUNSTATE_MAX_GPUS  1024           /* the largest gpus= read back */

/* How the previous run ended. */
enum runstate_end {
        RUNSTATE_FIRST,   /* no state file: no earlier run known */
        RUNSTATE_CLEAN,   /* stopped cleanly */
        RUNSTATE_KILLED,  /* same boot, no stop marker: vigil was killed or crashed */
        RUNSTATE_REBOOT,  /* another boot, no stop marker: the machine rebooted or lost power */
        RUNSTATE_UNKNOWN, /* no stop marker, and a boot id missing: one of the two above */
        RUNSTATE_END_COUNT
};

struct runstate {
        char boot_id[40];   /* "" when unknown */
        int64_t pid;        /* 0 when unknown */
        int64_t started_ns; /* CLOCK_REALTIME at start; 0 when unknown */
        int64_t stopped_ns; /* CLOCK_REALTIME at the clean stop; 0: no stop marker */
        uint64_t unclean[RUNSTATE_END_COUNT]; /* unclean ends so far, by kind (KILLED..) */
        int64_t last_unclean_ns;              /* when the latest unclean end was found; 0: never */
        bool gpus_known;                      /* gpus holds a count */
        unsigned gpus;                        /* the most GPUs NVML counted at a start */
        unsigned nbus;                        /* gpu_bus entries */
        char gpu_bus[RUNSTATE_MAX_BUS][AER_BDF_LEN]; /* "0000:01:00.0" */
        char machine_id[33];                         /* "" when unknown */
        char hardware_id[64];                        /* "" when unknown */
};

/* The latest post-mortem (report/postmortem.h writes and finds them): what the
 * findings of vigil's outputs (exit summary, status, dashboard, report) name. */
struct postmortem_info {
        enum runstate_end kind; /* how the run it examines ended */
        int64_t written_ns;     /* CLOCK_REALTIME when it was written */
        int64_t quiet_ns;       /* the last row logged before the end; 0 when none */
        char rel[96];           /* "postmortem/postmortem-YYYYMMDD-HHMMSS.log" */
        /* Why it ended (report/pm_cause.h): the cause's name ("brownout"; "" when not
         * known, a post-mortem older than the causes) and its evidence. */
        char cause[24];
        char cause_text[240];
        char path[1400]; /* the same under the log directory */
};

/* "first", "clean", "killed", "reboot", "unknown" (the label /metrics uses). */
const char *runstate_end_name(enum runstate_end end);
/* A sentence for people: "vigil was killed or crashed (same boot)". */
const char *runstate_end_text(enum runstate_end end);
/* True for KILLED, REBOOT and UNKNOWN. */
bool runstate_end_unclean(enum runstate_end end);

/* Append the finding for people, one line without a newline:
 *   "previous run: the machine rebooted or lost power under vigil (quiet since
 *    2026-12-03T03:01:02.345); post-mortem: DIR/postmortem/postmortem-....log"
 * pm NULL appends nothing. */
void runstate_finding(const struct postmortem_info *pm, struct strbuf *out);

/* Parse the file's text s[0..n) into *ret (zeroed first). Pure and bounded. 0, or
 * -EINVAL when no line of it is a known key (not a state file). */
int runstate_parse(const char *s, size_t n, struct runstate *ret);
/* Append the file's text for st to out. */
void runstate_format(const struct runstate *st, struct strbuf *out);
/* How the run recorded in prev ended, seen from a start on boot boot_id_now ("" when
 * unknown). prev NULL: RUNSTATE_FIRST. */
enum runstate_end runstate_classify(const struct runstate *prev, const char *boot_id_now);

/* True when prev was written on another machine cloned from this one's disk image:
 * the same machine_id (copied with the image) beside another hardware_id (the SoC's
 * serial, DMI, the NIC). False when either side lacks one. */
bool runstate_cloned(const struct runstate *prev, const char *machine_id, const char *hardware_id);

/* Read DIR/vigil.state. 0, -ENOENT when there is none, -EINVAL when it does not parse,
 * another -errno when it cannot be read; *ret untouched on failure. */
int runstate_load(const char *dir, struct runstate *ret);
/* Replace DIR/vigil.state with st, atomically and durably. 0 or -errno. */
int runstate_save(const char *dir, const struct runstate *st);
/* The boot id under root ("" or "/" for none) into out (cap >= 37), lower case, 36
 * characters. 0, or -errno / -EINVAL when unreadable or not a boot id (out is then ""). */
int runstate_boot_id(const char *root, char *out, size_t cap);

#endif
