/* SPDX-License-Identifier: Apache-2.0 */
/* Run an external program for a diagnostic snapshot (lspci, nvidia-smi): no shell
 * (posix_spawnp with an argv), stdout and stderr captured together into a bounded
 * buffer, a hard time limit, no zombie left behind, stdin from /dev/null, and no fd
 * of the daemon inherited (every fd vigil opens is O_CLOEXEC; only the capture pipe
 * is passed on). The child runs in its own process group with default signal
 * dispositions and an empty signal mask, so a timeout kills its children too. */
#ifndef VIGIL_UTIL_SPAWN_H
#define VIGIL_UTIL_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/strbuf.h"

#define SPAWN_DEFAULT_MAX_OUTPUT (64 * 1024)           /* captured bytes kept */
#define SPAWN_KILL_GRACE_NS      (200 * 1000 * 1000LL) /* wait for the reap after SIGKILL */

struct spawn_result {
        int exit_status; /* 0..255 when the program exited; -1 otherwise */
        int term_signal; /* the signal that ended it (SIGKILL after a timeout); 0 if none */
        bool timed_out;  /* it ran past the limit and was killed */
        bool not_found;  /* no such program on PATH */
        bool truncated;  /* more output than max_output; the rest was read and dropped */
        /* > 0: the pid of a child that did not die within SPAWN_KILL_GRACE_NS of SIGKILL
         * (stuck in the kernel, as nvidia-smi can be on a dead GPU). Pass it to
         * spawn_reap() later so it does not stay a zombie. */
        pid_t unreaped;
};

/* Run argv[0] (looked up on PATH) with argv (NULL-terminated), appending what it
 * writes on stdout and stderr to out: at most max_output bytes (0:
 * SPAWN_DEFAULT_MAX_OUTPUT) of output, NUL bytes written as '?'. Notes in
 * parentheses follow the output on a line of their own:
 *   "(output truncated)", "(timed out after 5s: lspci -vvs 0000:01:00.0)",
 *   "(not available: lspci)", "(failed: lspci: <reason>)", "(killed by signal 11)".
 * A non-zero exit status is not noted (the output usually says why); see ret. A
 * silent exit with status 127 is how posix_spawn may report a failed exec: taken as
 * not found.
 * Blocks at most timeout_ns plus SPAWN_KILL_GRACE_NS. ret may be NULL.
 * Returns 0 when the program ran and exited by itself (any status), -ETIMEDOUT,
 * -ENOENT (not found), or another -errno when it could not be started. */
int spawn_capture(const char *const argv[], int64_t timeout_ns, size_t max_output,
                  struct strbuf *out, struct spawn_result *ret);

/* Reap a child that spawn_capture() left running (result.unreaped) if it has ended
 * by now. True when it was reaped (or is not our child any more); never blocks. */
bool spawn_reap(pid_t pid);

#endif
