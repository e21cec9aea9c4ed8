/* SPDX-License-Identifier: Apache-2.0 */
/* The post-mortem's kernel log of the previous boot (report/postmortem.h), from what
 * the machine kept of it:
 *   - the systemd journal: `journalctl -k -b -1` (spawned without a shell, bounded in
 *     time and output; with --root, the journal under ROOT/var/log/journal), skipped
 *     with a note when there is none of the previous boot (a volatile journal);
 *   - else ROOT/var/log/kern.log.1 and kern.log (rsyslog): their tails, up to the
 *     current boot's "Linux version" line;
 *   - and the panic or oops the kernel saved: ROOT/sys/fs/pstore (dmesg-efi-*,
 *     dmesg-ramoops-*) and systemd-pstore's archive under ROOT/var/lib/systemd/pstore.
 * The PCIe error (AER) lines of the GPUs' own devices come first (util/aer_line.h: the
 * device's lines and its port's naming it), then the other lines that tell what
 * happened (NVRM, Xid, AER, under-voltage, thermal, mmc, ext4, panic, oops), then the
 * tail. Every source is bounded; a missing or
 * unreadable one is one line. */
#ifndef VIGIL_REPORT_PM_KLOG_H
#define VIGIL_REPORT_PM_KLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/aer_line.h"
#include "util/strbuf.h"

#define PM_KLOG_TIMEOUT_NS  (10LL * 1000 * 1000 * 1000) /* journalctl's run time */
#define PM_KLOG_MAX_BYTES   (2 * 1024 * 1024)           /* kept of one source */
#define PM_KLOG_JOURNAL_N   "5000"                      /* journal lines asked for */
#define PM_KLOG_IMPORTANT   200                         /* important lines shown */
#define PM_KLOG_TAIL        100                         /* last lines shown */
#define PM_KLOG_AER         100                         /* AER lines of the GPUs shown */
#define PM_KLOG_MAX_GPUS    16                          /* GPU devices whose lines go first */
#define PM_KLOG_GZ_INFLATE  (256 * 1024 * 1024)         /* inflated from kern.log.2.gz at most */
#define PM_PSTORE_MAX_FILES 16
#define PM_PSTORE_TAIL      (32 * 1024) /* read from the end of each pstore file */

/* The GPUs whose AER lines go first: their PCI devices as the kernel names them
 * ("0000:01:00.0", aer_bdf_from_bus_id). */
struct pm_klog_gpus {
        unsigned n;
        char bdf[PM_KLOG_MAX_GPUS][AER_BDF_LEN];
};

/* Append the kernel-log sections for the boot before this one, read under root ("" or
 * "/" for none); the AER lines of gpus' devices first (gpus may be NULL: none). Blocks
 * at most PM_KLOG_TIMEOUT_NS (plus the spawn's grace). */
void pm_klog_section(struct strbuf *out, const char *root, const struct pm_klog_gpus *gpus);

/* True when the kernel log line s[0..n) is one of those shown first. Pure. */
bool pm_klog_important(const char *s, size_t n);

/* Append the AER lines of gpus' devices in text[0..n) (at most PM_KLOG_AER, the last
 * ones; no section when gpus is NULL or names none), then the other important lines
 * (at most PM_KLOG_IMPORTANT, the last ones), then its last PM_KLOG_TAIL lines, each
 * under a title line. Xid lines get their meaning appended. */
void pm_klog_rank(struct strbuf *out, const char *text, size_t n, const struct pm_klog_gpus *gpus);

#endif
