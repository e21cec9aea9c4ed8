/* SPDX-License-Identifier: Apache-2.0 */
/* Storage health rules, entries of the Pi rule table (rpi_rules.h), evaluated on every
 * host sample on every machine:
 *   fs_readonly     the root or the log directory's file system mounted read-only
 *                   (how an SD card that ext4 gave up on shows: "Remounting filesystem
 *                   read-only"); an incident snapshot
 *   storage_errors  new kernel-log lines reporting mmc, ext4, f2fs or I/O errors in this
 *                   sample (warn), none (ok: said as "quiet" once); an incident snapshot
 *   fs_filling      a file system full within 24 h at the last hour's rate, for 3
 *                   samples (clears past 48 h or when no longer filling) */
#ifndef VIGIL_DETECT_STORAGE_RULES_H
#define VIGIL_DETECT_STORAGE_RULES_H

#include "detect/rpi_rules.h"

#define STORAGE_FILL_WARN_S  (24 * 3600.0)
#define STORAGE_FILL_CLEAR_S (48 * 3600.0)

int storage_eval_readonly(const struct rpi_rule *r, const struct frame *f,
                          const struct rpi_thresholds *th, enum rpi_level prev);
void storage_desc_readonly(const struct rpi_rule *r, const struct frame *f,
                           const struct rpi_thresholds *th, enum rpi_level lvl, struct strbuf *sb);
int storage_eval_errors(const struct rpi_rule *r, const struct frame *f,
                        const struct rpi_thresholds *th, enum rpi_level prev);
void storage_desc_errors(const struct rpi_rule *r, const struct frame *f,
                         const struct rpi_thresholds *th, enum rpi_level lvl, struct strbuf *sb);
int storage_eval_filling(const struct rpi_rule *r, const struct frame *f,
                         const struct rpi_thresholds *th, enum rpi_level prev);
void storage_desc_filling(const struct rpi_rule *r, const struct frame *f,
                          const struct rpi_thresholds *th, enum rpi_level lvl, struct strbuf *sb);

/* "read-only root file system /dev/mmcblk0p2 (ext4)" and the like, for an incident's
 * reason: which of the rules' conditions hold in f. */
void storage_describe_incident(const struct frame *f, bool readonly, bool errors,
                               struct strbuf *sb);

#endif
