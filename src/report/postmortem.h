/* SPDX-License-Identifier: Apache-2.0 */
/* The post-mortem: after an unclean end of vigil (killed, or the machine rebooted or
 * lost power under it), what the machine looked like in its last seconds and what the
 * kernel said, in one file: LOG-DIR/postmortem/postmortem-YYYYMMDD-HHMMSS.log.
 *
 * Sections, each bounded (pm_csv.h, pm_klog.h):
 *   the cause        under the title, one line: "Cause: NAME: what, evidence"
 *                    (report/pm_cause.h, its order of precedence)
 *   the header       how the previous run ended, when each log went quiet (its last
 *                    row), how long the machine or vigil was down, this boot's uptime
 *   rows             the last 60 s of every log's rows before the end; per GPU the
 *                    min/max of its last 10 s; a Pi's last throttled word
 *   events           the last lines of events.log (Xids with their meaning, anomalies,
 *                    snapshots)
 *   snapshots        crash and incident snapshots of the last minutes before the end
 *   kernel log       after a reboot only: the previous boot's kernel log and the
 *                    crash dumps the kernel kept (pstore)
 * A source that is missing or unreadable is one line; nothing here fails the daemon. */
#ifndef VIGIL_REPORT_POSTMORTEM_H
#define VIGIL_REPORT_POSTMORTEM_H

#include <stdbool.h>
#include <stdint.h>

#include "core/runstate.h"
#include "report/pm_klog.h"
#include "util/strbuf.h"

#define POSTMORTEM_DIR       "postmortem"
#define POSTMORTEM_MAX_BYTES (16 * 1024 * 1024) /* one post-mortem at most */
#define POSTMORTEM_EVENTS    40                 /* events.log lines shown */
#define POSTMORTEM_SNAP_S    600                /* snapshots this long before the end */
#define POSTMORTEM_MAX_SNAPS 10                 /* snapshots listed per directory */

struct postmortem_input {
        const char *log_dir;         /* where the logs are, and the post-mortem goes */
        const char *root;            /* --root ("" for none): the kernel log's and uptime's */
        enum runstate_end kind;      /* how the previous run ended (runstate_classify) */
        const struct runstate *prev; /* the previous run's state; NULL when unknown */
        const char *boot_id;         /* this boot's id; "" when unknown */
        int64_t now_ns;              /* CLOCK_REALTIME now */
        /* The GPUs whose PCIe error lines the kernel log section puts first; NULL: none */
        const struct pm_klog_gpus *gpus;
        bool brief;   /* the header and what happened only (vigil status) */
        bool pending; /* built before any start examined the end: "down" until now */
};

/* Append the post-mortem's text for in to out; *ret_quiet_ns (may be NULL) is the time
 * of the last row of any log (0 when none). Blocks while journalctl runs (at most
 * PM_KLOG_TIMEOUT_NS). */
void postmortem_build(const struct postmortem_input *in, struct strbuf *out, int64_t *ret_quiet_ns);

/* The same, with the cause decided (ret_info may be NULL): its cause and cause_text
 * are filled, nothing else. */
void postmortem_build_info(const struct postmortem_input *in, struct strbuf *out,
                           int64_t *ret_quiet_ns, struct postmortem_info *ret_info);

/* Build and write LOG-DIR/postmortem/postmortem-YYYYMMDD-HHMMSS.log (synced); fill *ret
 * with what the findings name. 0 or -errno (nothing written then). */
int postmortem_write(const struct postmortem_input *in, struct postmortem_info *ret);

/* The latest post-mortem in log_dir (by its name) and the header fields it holds.
 * 0, -ENOENT when there is none, another -errno when the directory cannot be read. */
int postmortem_latest(const char *log_dir, struct postmortem_info *ret);

/* The last run ended uncleanly and no start has examined it yet (vigil.state has no
 * stop marker; the caller knows that no instance runs): the post-mortem the next start
 * will write, into out, after a line saying so (brief: the header and what happened).
 * 0; -ENOENT when the last run stopped cleanly or none is known; -errno when the state
 * cannot be read. Blocks while journalctl runs (not when brief). */
int postmortem_pending(const char *log_dir, const char *root, bool brief, struct strbuf *out);

/* `vigil postmortem [LOG-DIR]`: print the latest post-mortem to stdout. Returns the
 * exit status: 0 printed, 1 none there or unreadable. */
int postmortem_cmd(const char *log_dir);

#endif
