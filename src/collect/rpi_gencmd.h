/* SPDX-License-Identifier: Apache-2.0 */
/* The firmware's text commands ("gencmd", what vcgencmd sends) in a mailbox property
 * buffer: building the request for one command and reading the firmware's answer.
 * Pure functions over u32 words; the transport is in rpi_transport.h.
 *
 * Layout, as raspberrypi/utils vcgencmd/vcgencmd.c builds it (gencmd()):
 *   [0] total bytes          [1] 0 (process request)
 *   [2] 0x00030080 (tag)     [3] value buffer bytes (vcgencmd: MAX_STRING)
 *   [4] 0 (request; the firmware sets bit 31 and the response length)
 *   [5] 0 (the firmware's error word: 0 when the command ran)
 *   [6..] the command, NUL-terminated; the answer text replaces it, NUL-terminated
 *   [last] 0 (end tag)
 * vcgencmd prints the text from word 6 and exits with word 5. One command per buffer:
 * no source shows the firmware answering several gencmd tags in one request. */
#ifndef VIGIL_COLLECT_RPI_GENCMD_H
#define VIGIL_COLLECT_RPI_GENCMD_H

#include <stddef.h>
#include <stdint.h>

#define GENCMD_TAG 0x00030080u /* GET_GENCMD_RESULT (vcgencmd.c; vcio.c vcio_gencmd_tags) */
/* Text bytes after the error word: vcgencmd's MAX_STRING before raspberrypi/utils
 * commit 41d0d40 raised it to 4096 for long `get_config` answers. The answers vigil
 * asks for are one short line; an answer that does not fit makes the firmware fail
 * the request, which the kernel returns as EINVAL (that commit's message). */
#define GENCMD_TEXT_BYTES 1024u
/* Words of a request: header 2, tag header 3, error word, text, end tag. */
#define GENCMD_WORDS (2 + 3 + 1 + GENCMD_TEXT_BYTES / 4 + 1)

/* Build the request for cmd (NUL-terminated) into buf (cap words); the text area is
 * zeroed past the command. *ret_words gets the length in words. 0, -ENAMETOOLONG (cmd
 * with its NUL does not fit the text area) or -ENOSPC (cap too small). */
int gencmd_build(uint32_t *buf, size_t cap, const char *cmd, size_t *ret_words);

/* Read the answer in buf (nwords, as built by gencmd_build): the text into out (cap
 * bytes, NUL-terminated) and the firmware's error word into *ret_err. Returns the text
 * length; -EPROTO when the size word or tag id changed or the reply code is not
 * 0x80000000 (the kernel sets it on success); -ENODATA when the tag was left
 * unanswered (response bit clear: the firmware does not know gencmd); -EBADMSG when
 * the text has no NUL inside the text area. out and *ret_err untouched on failure. */
int gencmd_decode(const uint32_t *buf, size_t nwords, char *out, size_t cap, uint32_t *ret_err);

/* The N of an `error=N error_msg="..."` answer (the firmware's form of a failed
 * command), or -1 when text is not one. */
long gencmd_error_code(const char *text, size_t n);

#endif
