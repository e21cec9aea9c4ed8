/* How a mailbox request reaches the firmware: a small table of functions, so the
 * Raspberry Pi source runs the same code against the real /dev/vcio and against a
 * fake firmware described by a fixture file.
 *
 * Fixture convention: on a real machine /dev/vcio is a character device. When the
 * path given to rpi_transport_pick() (ROOT/dev/vcio under --root) is a regular file,
 * it is a fake firmware description and the fake transport reads it. The format:
 *
 *   # comment
 *   tag 0x00030006 id=0 47236     answer tag 0x00030006 when its first request word
 *                                 is 0, with the value [0, 47236]
 *   tag 0x00030046 0x50005        answer tag 0x00030046 (any request) with [0x50005]
 *   tag 0x00030047 id=5 len=4 250000000   report a value length of 4 bytes (a short
 *                                 reply); len= may also exceed the buffer (truncated)
 *   reply 0x80000001              the buffer's reply code (default 0x80000000)
 *   fail open EACCES              opening fails with this errno
 *   fail ioctl EIO [after N]      the request fails with this errno (after N good ones)
 *
 * Tags without a line are left unanswered, as the firmware leaves unknown tags. */
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

/* The real transport: open(path, O_RDWR|O_CLOEXEC) and
 * ioctl(fd, _IOWR(100, 0, char *), buf). */
extern const struct rpi_transport_ops rpi_transport_vcio;
/* The fake firmware: path is a description file in the format above. */
extern const struct rpi_transport_ops rpi_transport_fake;

/* The transport for path: the fake one when path is a regular file, else the real
 * one (which then reports why it cannot open). Never NULL. */
const struct rpi_transport_ops *rpi_transport_pick(const char *path);

/* The fake firmware itself, exposed for tests that drive it directly. */
#define FAKEFW_MAX_ENTRIES 64
#define FAKEFW_MAX_VALUES  4
#define FAKEFW_MAX_BYTES   16384 /* description files larger than this are cut */

struct fakefw_entry {
        uint32_t id;
        bool has_key; /* id=N: match on the first request word, echo it first */
        uint32_t key;
        bool has_len; /* len=N: report this value length */
        uint32_t len;
        unsigned nvals;
        uint32_t vals[FAKEFW_MAX_VALUES];
};

struct fakefw {
        unsigned n;
        struct fakefw_entry e[FAKEFW_MAX_ENTRIES];
        uint32_t reply;      /* reply code written to word 1 */
        int open_err;        /* 0 or a positive errno */
        int call_err;        /* 0 or a positive errno */
        unsigned call_after; /* calls that succeed before call_err applies */
        /* What it saw, for tests: */
        unsigned calls;
        unsigned last_ntags;         /* tags in the last request */
        unsigned throttled_requests; /* get-throttled tags seen */
        unsigned throttled_nonzero;  /* ... whose request word was not 0 */
};

/* Parse a description (text[0..n)). 0, or -EINVAL with *ret_line set to the 1-based
 * line that is wrong. */
int fakefw_parse(struct fakefw *fw, const char *text, size_t n, unsigned *ret_line);

/* Answer the request in buf (cap words) as the firmware would: a malformed buffer
 * gets reply code 0x80000001 and the tags before the fault answered; a size word
 * that is not a multiple of 4, under 12 or over cap words is -EINVAL (the kernel
 * refuses it). Honours fail ioctl. 0 or -errno. */
int fakefw_answer(struct fakefw *fw, uint32_t *buf, size_t cap);

#endif
