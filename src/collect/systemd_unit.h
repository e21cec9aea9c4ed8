/* SPDX-License-Identifier: Apache-2.0 */
/* A systemd unit's state as `systemctl show` prints it, read off the main loop: the
 * restarts of the unit that runs a watched program (--watch NAME=unit:UNIT).
 *
 *   $ systemctl show -p LoadState,ActiveState,SubState,Result,NRestarts,ExecMainCode,
 *       ExecMainStatus -- player.service
 *   NRestarts=3
 *   ExecMainCode=2
 *   ExecMainStatus=11
 *   Result=signal
 *   LoadState=loaded
 *   ActiveState=active
 *   SubState=running
 *
 * ("KEY=VALUE" lines in systemd's own order, systemctl(1) show; NRestarts since
 * systemd 235: "the number of restarts by Restart=", reset when the unit is stopped or
 * started by hand; ExecMainCode is the main process's si_code, CLD_EXITED 1, CLD_KILLED 2,
 * CLD_DUMPED 3 (include/uapi/asm-generic/siginfo.h), and ExecMainStatus its exit status
 * or signal; Result "success", "exit-code", "signal", "core-dump", "timeout",
 * "watchdog", "oom-kill", "start-limit-hit", ... systemd.exec(5) $SERVICE_RESULT.)
 * No D-Bus: the command is spawned (util/spawn.h) on the poller's own thread, at most
 * every UNIT_POLL_MIN_NS, every period, and soon after unit_poller_poke(). */
#ifndef VIGIL_COLLECT_SYSTEMD_UNIT_H
#define VIGIL_COLLECT_SYSTEMD_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UNIT_POLL_MIN_NS  (5LL * 1000 * 1000 * 1000)  /* between two reads of a unit */
#define UNIT_POLL_NS      (30LL * 1000 * 1000 * 1000) /* the reading's period */
#define UNIT_SHOW_TIMEOUT (5LL * 1000 * 1000 * 1000)  /* one systemctl run */
#define UNIT_MAX          16
#define UNIT_NAME_MAX     100

struct unit_state {
        bool known;        /* systemctl answered with the unit's state */
        bool loaded;       /* LoadState=loaded (else the unit is not installed) */
        char active[24];   /* ActiveState: "active", "failed", "activating" ... */
        char sub[24];      /* SubState: "running", "auto-restart" ... */
        char result[24];   /* Result */
        int64_t nrestarts; /* NRestarts; -1 when systemd does not say (before 235) */
        int main_code;     /* ExecMainCode; 0 when never run */
        int main_status;   /* ExecMainStatus */
};

/* Parse systemctl show's output text[0..len) into *ret (zeroed first, nrestarts -1).
 * 0, or -EINVAL when it names no ActiveState (not systemctl show's answer). */
int unit_show_parse(const char *text, size_t len, struct unit_state *ret);

/* "exited 1", "killed by signal 9", "dumped core on signal 11"; "" when not run. */
void unit_main_describe(const struct unit_state *u, char *out, size_t cap);

struct unit_poller; /* opaque: its thread and the units' last states */

/* Start reading units[0..n) (unit names, copied) every period_ns (0: UNIT_POLL_NS) with
 * systemctl found on PATH. 0, -EINVAL, -ENOMEM or the thread's -errno. */
int unit_poller_start(struct unit_poller **ret, const char *const *units, unsigned n,
                      int64_t period_ns);
/* Ask for a reading soon (not sooner than UNIT_POLL_MIN_NS, or the period when
 * shorter, after the last). */
void unit_poller_poke(struct unit_poller *p);
/* The last state of unit i and the count of readings so far (0: none yet); false for
 * a bad index. Never blocks on the command. */
bool unit_poller_get(struct unit_poller *p, unsigned i, struct unit_state *ret,
                     uint64_t *ret_reads);
/* Why the last reading failed ("systemctl not found", "timed out"...), "" when it did
 * not: a copy into out. */
void unit_poller_error(struct unit_poller *p, char *out, size_t cap);
/* Stop the thread (waits for a running systemctl, at most its timeout) and free. */
void unit_poller_stop(struct unit_poller *p);

#endif
