/* SPDX-License-Identifier: Apache-2.0 */
/* Why the previous run ended: ONE cause for the post-mortem's first line, with its
 * evidence, decided in a fixed order of precedence (the first that holds wins):
 *
 *   1 panic      the kernel saved a panic record: ROOT/sys/fs/pstore/dmesg-* whose
 *                header is "Panic#N PartM" (fs/pstore/platform.c, pstore_dump, the
 *                reason from kmsg_dump_reason_str; Documentation/admin-guide/ramoops.rst:
 *                "dmesg-ramoops-N"; efi-pstore: "dmesg-efi-N"), or systemd-pstore's
 *                copy under ROOT/var/lib/systemd/pstore/ (a directory per record), of
 *                the previous run's time (not older than its start)
 *   2 brownout   under-voltage (a Raspberry Pi's throttled bit 0) in a host row of the
 *                last PM_CAUSE_WINDOW_S seconds, or an RPI_THROTTLE under-voltage line
 *                of events.log in the last PM_CAUSE_EVENTS_S seconds before the end, or
 *                in the last lines of the previous boot's kernel log (pm_evidence_klog;
 *                it names panics, OOM kills and critical temperatures too)
 *   3 thermal    the soft temperature limit (throttled bit 3) or PM_CAUSE_HOT_C in a
 *                host row of the last seconds, or a critical temperature line (RPI_TEMP
 *                hot or crit, TEMP_OVER_MAX above) in the last minute
 *   4 oom        an OOM_KILL line of events.log in the last minute
 *   5 gpu_lost   a GPU lost in the last minute: NVML_FAILED, a KERNEL_GPU line of a GPU
 *                fallen off the bus, an Xid 79, fewer GPUs answering (GPU_COUNT)
 *   6 watchdog   a hardware watchdog reset the machine: bit WDIOF_CARDRESET (0x0020,
 *                include/uapi/linux/watchdog.h, "Card previously reset the CPU") of
 *                ROOT/sys/class/watchdog/watchdogN/bootstatus (drivers/watchdog/
 *                watchdog_dev.c bootstatus_show, "%u\n"). The Raspberry Pi's bcm2835_wdt
 *                (drivers/watchdog/bcm2835_wdt.c) never sets bootstatus: a Pi's watchdog
 *                reset reads as a hard hang.
 *   7 killed     the same boot: vigil alone ended (a signal, its own crash); of the
 *                causes above only an OOM kill can end vigil without the machine
 *   8 power_cut_or_hang   another boot and none of the above: the power was cut or
 *                the machine hung hard (and was reset by hand or a watchdog that says
 *                nothing)
 *
 * What the kernel, the power and the heat say comes before what the programs logged
 * (a brown-out also kills processes and GPUs); a watchdog says only that the machine
 * hung, so any cause of the hang comes before it. */
#ifndef VIGIL_REPORT_PM_CAUSE_H
#define VIGIL_REPORT_PM_CAUSE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/runstate.h"
#include "report/pm_csv.h"

#define PM_CAUSE_WINDOW_S 10.0 /* host rows read for power and heat */
#define PM_CAUSE_EVENTS_S 60.0 /* events.log lines read before the end */
#define PM_CAUSE_HOT_C    85.0 /* the Pi firmware's default temp_limit (config.txt) */
#define PM_CAUSE_TEXT     240

enum pm_cause {
        PM_CAUSE_PANIC,
        PM_CAUSE_BROWNOUT,
        PM_CAUSE_THERMAL,
        PM_CAUSE_OOM,
        PM_CAUSE_GPU_LOST,
        PM_CAUSE_WATCHDOG,
        PM_CAUSE_KILLED,
        PM_CAUSE_POWER_CUT,
        PM_CAUSE_COUNT
};

/* What was found for each cause: held[c] and its evidence text. */
struct pm_evidence {
        bool held[PM_CAUSE_COUNT];
        char text[PM_CAUSE_COUNT][PM_CAUSE_TEXT];
};

/* Gather the evidence of an end of kind under log_dir (events.log, the host log among
 * files[0..n)) and root (pstore, watchdogs: only for an end on another boot);
 * prev_start_ns is the previous run's start (0: unknown), end_ns its end (the last
 * row; 0: unknown, then the last events.log line). Missing files are no evidence. */
void pm_evidence_gather(const char *log_dir, const char *root, enum runstate_end kind,
                        int64_t prev_start_ns, int64_t end_ns, const struct pm_csv_file *files,
                        int n, struct pm_evidence *ret);

/* More evidence from the post-mortem's text[0..n): the last lines of the previous boot's
 * kernel log (report/pm_klog.h's "Last N lines:" of "Kernel log of the previous boot"),
 * its end: "Kernel panic - not syncing" (panic), the OOM killer's "Killed process" (oom),
 * the Raspberry Pi's "Undervoltage detected!" not followed by "Voltage normalised"
 * (drivers/hwmon/raspberrypi-hwmon.c, dev_crit/dev_info: brownout), the thermal core's
 * "critical temperature reached" (drivers/thermal/thermal_core.c, before an orderly
 * shutdown: thermal). */
void pm_evidence_klog(struct pm_evidence *e, const char *text, size_t n);

/* The cause by the order above, and its evidence into out (cap bytes). */
enum pm_cause pm_cause_decide(const struct pm_evidence *e, enum runstate_end kind, char *out,
                              size_t cap);

/* "panic", "brownout", "thermal", "oom", "gpu_lost", "watchdog", "killed",
 * "power_cut_or_hang" (the label of vigil_last_end); "?" out of range. */
const char *pm_cause_name(enum pm_cause c);
/* "kernel panic", "brown-out (under-voltage)", ...; "?" out of range. */
const char *pm_cause_text(enum pm_cause c);
/* The cause named name, or -1. */
int pm_cause_find(const char *name);

#endif
