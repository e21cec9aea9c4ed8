/* SPDX-License-Identifier: Apache-2.0 */
/* The TV's power status over HDMI-CEC: a small table of functions, so the display
 * source runs the same code against the kernel's CEC adapter (/dev/cec0) and against a
 * fake adapter described by a fixture file (asked at every sample, not once a minute).
 *
 * The question is asked without waiting: cec_ask() sends <Give Device Power Status>
 * to the TV (logical address 0) on a non-blocking file descriptor and returns at once;
 * cec_answer() collects <Report Power Status> on a later tick, or says it is not there
 * yet. The loop never waits on the bus.
 *
 * Fixture convention: on a real machine /dev/cec0 is a character device. When the path
 * given to cec_open() (ROOT/dev/cec0 under --root) is a regular file, it describes a
 * fake adapter, kept open and re-read (one pread) at every question, so a test rewrites
 * it in place (the same inode), never by rename; empty, nobody answers:
 *
 *   power 1          the TV answers with power status 1 (0 on, 1 standby, 2 to on,
 *                    3 to standby)
 *   nack             nobody answers (TV unplugged or without CEC)
 *   unconfigured     the adapter has no logical address (nobody ran cec-ctl)
 *   fail EIO         the request fails with this errno */
#ifndef VIGIL_COLLECT_CEC_H
#define VIGIL_COLLECT_CEC_H

#include <stdbool.h>

struct cec;

/* Open the adapter at path (the real one, or the fake a regular file describes).
 * 0 and *ret, or -errno (-ENOENT: no adapter). */
int cec_open(const char *path, struct cec **ret);
/* Send the question. 0, -EADDRNOTAVAIL when the adapter has no logical address to send
 * from, or another -errno. */
int cec_ask(struct cec *c);
/* The answer to the last question: its power status 0-3; -EAGAIN not yet; -ETIMEDOUT
 * when the TV did not answer (not acknowledged, or no reply in time); another -errno
 * on failure. */
int cec_answer(struct cec *c);
/* Whether c is a fake adapter (a regular file): the display source asks it at every
 * sample, so that a test that rewrites the file sees the answer at once. */
bool cec_is_fake(const struct cec *c);
/* Close and free; accepts NULL. */
void cec_close(struct cec *c);

#endif
