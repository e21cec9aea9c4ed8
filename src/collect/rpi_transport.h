/* SPDX-License-Identifier: Apache-2.0 */
/* How a mailbox request reaches the firmware: a small table of functions, so the
 * Raspberry Pi source runs the same code against the real vcio nodes and against a
 * fake firmware described by a fixture file.
 *
 * Fixture convention: on a real machine /dev/vcio and /dev/vcio_gencmd are character
 * devices. When the path given to rpi_transport_pick() (ROOT/dev/vcio or
 * ROOT/dev/vcio_gencmd under --root) is a regular file, it is a fake firmware
 * description and the fake transport reads it. The fake does what the kernel and the
 * firmware do (raspberrypi/linux drivers/char/broadcom/vcio.c and
 * drivers/firmware/raspberrypi.c): a malformed buffer or a firmware error fails the
 * call with EINVAL and nothing is copied back; a node restricted to some tags fails a
 * request carrying another with EPERM; on success the reply code is 0x80000000. The
 * format:
 *
 *   # comment
 *   tag 0x00030006 id=0 47236     answer tag 0x00030006 when its first request word
 *                                 is 0, with the value [0, 47236]
 *   tag 0x00030046 0x50005        answer tag 0x00030046 (any request) with [0x50005]
 *   tag 0x00030047 id=5 len=4 250000000   report a value length of 4 bytes (the
 *                                 firmware under-reports lengths, firmware#1968)
 *   gencmd "measure_temp" temp=47.2'C     answer the gencmd command with this text
 *                                 (the rest of the line, verbatim; may be empty)
 *   gencmd err=2 "get_throttled" error=2 error_msg="..."   and this error word
 *   gencmd fail=EINVAL "measure_clock h264"   the firmware fails the request
 *   allow 0x00030080              the node accepts only these tags (vcio_gencmd);
 *                                 repeatable; without it every tag is accepted
 *   fail open EACCES              opening fails with this errno
 *   fail ioctl EIO [after N]      every request fails with this errno (after N good ones)
 *
 * Tags without a line are left unanswered, as the firmware leaves unknown tags; with
 * no gencmd line at all the gencmd tag is too. A gencmd command without a line gets
 * what the firmware answers for one it does not have: error word 0xffffffff and
 * `error=1 error_msg="Command not registered"` (raspberrypi/utils#39). */
#ifndef VIGIL_COLLECT_RPI_TRANSPORT_H
#define VIGIL_COLLECT_RPI_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rpi_transport_ops {
        const char *name;
        /* Open the transport at path; *ret_priv is its own state. 0 or -errno. */
        int (*open)(const char *path, void **ret_priv);
        /* Send one property request (buf[0] = its size in bytes, at most cap words);
         * the answer overwrites buf. 0 or -errno (then buf is unspecified). */
        int (*call)(void *priv, uint32_t *buf, size_t cap);
        /* Close and free; accepts NULL. */
        void (*close)(void *priv);
};

/* The real transport: open(path, O_RDONLY|O_CLOEXEC) and
 * ioctl(fd, _IOWR(100, 0, char *), buf). */
extern const struct rpi_transport_ops rpi_transport_vcio;
/* The fake firmware: path is a description file in the format above. */
extern const struct rpi_transport_ops rpi_transport_fake;

/* The transport for path: the fake one when path is a regular file, else the real
 * one (which then reports why it cannot open). Never NULL. */
const struct rpi_transport_ops *rpi_transport_pick(const char *path);

/* The fake firmware itself, exposed for tests that drive it directly. */
#define FAKEFW_MAX_ENTRIES 64
#define FAKEFW_MAX_GENCMDS 16
#define FAKEFW_MAX_ALLOW   8
#define FAKEFW_MAX_VALUES  4
#define FAKEFW_MAX_BYTES   16384 /* description files larger than this are cut */
#define FAKEFW_MAX_WORDS   4096  /* requests larger than this are refused (EINVAL) */
#define FAKEFW_CMD_MAX     64
#define FAKEFW_REPLY_MAX   256

struct fakefw_entry {
        uint32_t id;
        bool has_key; /* id=N: match on the first request word, echo it first */
        uint32_t key;
        bool has_len; /* len=N: report this value length */
        uint32_t len;
        unsigned nvals;
        uint32_t vals[FAKEFW_MAX_VALUES];
};

struct fakefw_gencmd {
        char cmd[FAKEFW_CMD_MAX];
        char reply[FAKEFW_REPLY_MAX];
        uint32_t err; /* the error word */
        int fail;     /* 0 or a positive errno for the whole request */
};

struct fakefw {
        unsigned n;
        struct fakefw_entry e[FAKEFW_MAX_ENTRIES];
        unsigned ngencmd;
        struct fakefw_gencmd g[FAKEFW_MAX_GENCMDS];
        unsigned nallow; /* 0: every tag allowed */
        uint32_t allow[FAKEFW_MAX_ALLOW];
        int open_err;        /* 0 or a positive errno */
        int call_err;        /* 0 or a positive errno */
        unsigned call_after; /* calls that succeed before call_err applies */
        /* What it saw, for tests: */
        unsigned calls;
        unsigned last_ntags;              /* tags in the last request */
        unsigned throttled_requests;      /* get-throttled tags seen */
        unsigned throttled_nonzero;       /* ... whose request word was not 0 */
        unsigned gencmd_requests;         /* gencmd tags seen */
        char last_gencmd[FAKEFW_CMD_MAX]; /* the last gencmd command text */
};

/* Parse a description (text[0..n)). 0, or -EINVAL with *ret_line set to the 1-based
 * line that is wrong. */
int fakefw_parse(struct fakefw *fw, const char *text, size_t n, unsigned *ret_line);

/* Answer the request in buf (cap words) as the kernel and firmware would: -EINVAL for
 * a size word that is not a multiple of 4, under 12 or over cap words, a buffer
 * without an end tag or with a tag running past it, or a gencmd answer that does not
 * fit its buffer; -EPERM for a tag the node does not allow; then answered tags, reply
 * code 0x80000000 and 0. On failure buf is left as it was. Honours fail lines. */
int fakefw_answer(struct fakefw *fw, uint32_t *buf, size_t cap);

#endif
