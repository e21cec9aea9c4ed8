/* SPDX-License-Identifier: Apache-2.0 */
/* vcgencmd: the last-resort way to the firmware's values, used only when the mailbox
 * device cannot be opened. Parsers for its one-line answers, and a bounded runner
 * (no shell, stdout captured, a deadline after which the child is killed). */
#ifndef VIGIL_COLLECT_RPI_VCGENCMD_H
#define VIGIL_COLLECT_RPI_VCGENCMD_H

#include <stddef.h>
#include <stdint.h>

#define VCGENCMD_OUTPUT_MAX 4096 /* bytes of output kept */
#define VCGENCMD_TIMEOUT_MS 5000

/* "temp=47.2'C" -> 47.2 (degrees C). 0 or -EINVAL; *ret untouched on failure. */
int vcgencmd_parse_temp(const char *s, size_t n, double *ret_c);
/* "frequency(48)=1500000000" -> 1500000000 Hz (the number in brackets varies). */
int vcgencmd_parse_freq(const char *s, size_t n, double *ret_hz);
/* "volt=0.8563V" -> 0.8563 V. */
int vcgencmd_parse_volt(const char *s, size_t n, double *ret_v);
/* "throttled=0x50000" -> 0x50000. */
int vcgencmd_parse_throttled(const char *s, size_t n, uint32_t *ret);

/* Run prog (looked up on PATH when it has no '/') with argv (NULL-terminated, argv[0]
 * the program name) without a shell: stdin and stderr are /dev/null, stdout is read
 * into out (cap bytes, NUL-terminated). The child is killed (SIGKILL) and reaped when
 * it runs past timeout_ms or writes more than cap-1 bytes.
 * Returns the output length when the child exited with status 0; -ENOENT when the
 * program cannot be run (or exits 127, the not-found status); -ETIMEDOUT; -EMSGSIZE
 * (too much output); -EPROTO (another non-zero exit, or killed by a signal); or
 * another -errno. out holds what was read. */
int vcgencmd_run(const char *prog, const char *const *argv, char *out, size_t cap, int timeout_ms);

#endif
