/* SPDX-License-Identifier: Apache-2.0 */
/* HDMI-CEC power status of the TV. See cec.h.
 *
 * The kernel's CEC API (include/uapi/linux/cec.h, Documentation/userspace-api/media/cec/):
 * CEC_ADAP_G_LOG_ADDRS gives the logical addresses the adapter claimed (none until
 * something such as `cec-ctl --playback` configured it: then nothing can be sent);
 * CEC_TRANSMIT sends a struct cec_msg, msg[0] = initiator << 4 | destination, msg[1]
 * the opcode, with .reply the opcode awaited and .timeout its wait in ms. On a
 * non-blocking file descriptor CEC_TRANSMIT returns at once with the message's
 * .sequence; its result, and the reply, come back later through CEC_RECEIVE as a
 * message with the same .sequence (tx_status, rx_status: CEC_RX_STATUS_OK with the
 * reply in msg[], CEC_RX_STATUS_TIMEOUT without one), and CEC_RECEIVE fails with EAGAIN
 * while nothing is pending (cec-ioc-receive.rst). */
#include "collect/cec.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/cec.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect/display_parse.h"
#include "util/attr.h"
#include "util/parse.h"

#define CEC_TV            0 /* logical address of the TV (CEC_LOG_ADDR_TV) */
#define CEC_REPLY_WAIT_MS 1000
#define FAKE_MAX          256

struct cec {
        bool fake;
        int fd;            /* the adapter, or the fake's file, kept open */
        uint32_t sequence; /* of the question in flight; 0 none */
        int fake_answer;   /* the fake's answer to the last question */
};

int cec_open(const char *path, struct cec **ret)
{
        struct stat st;
        if (stat(path, &st) < 0)
                return -errno;
        struct cec *c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->fake = S_ISREG(st.st_mode);
        c->fake_answer = -EAGAIN;
        c->fd = c->fake ? attr_open(NULL, path) : open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
        if (c->fd < 0) {
                int e = c->fake ? c->fd : -errno;
                free(c);
                return e;
        }
        *ret = c;
        return 0;
}

bool cec_is_fake(const struct cec *c)
{
        return c->fake;
}

/* The fake adapter: the file's first line, read now with one pread of the descriptor
 * kept since cec_open(). An empty file (a test's rewrite in place caught between its
 * truncation and its write) is a question nobody answered. */
static int fake_ask(struct cec *c)
{
        char buf[FAKE_MAX];
        int n = attr_read(c->fd, buf, sizeof(buf));
        if (n < 0)
                return n;
        if (n == 0) {
                c->fake_answer = -ETIMEDOUT;
                return 0;
        }
        struct cursor cur = cur_make(buf, (size_t)n);
        uint64_t v;
        if (cur_lit(&cur, "power ")) {
                if (cur_u64(&cur, &v) < 0 || v > 3)
                        return -EINVAL;
                c->fake_answer = (int)v;
        } else if (cur_lit(&cur, "nack")) {
                c->fake_answer = -ETIMEDOUT;
        } else if (cur_lit(&cur, "unconfigured")) {
                return -EADDRNOTAVAIL;
        } else if (cur_lit(&cur, "fail EIO")) {
                return -EIO;
        } else {
                return -EINVAL;
        }
        return 0;
}

int cec_ask(struct cec *c)
{
        if (c->fake)
                return fake_ask(c);
        struct cec_log_addrs la;
        memset(&la, 0, sizeof(la));
        if (ioctl(c->fd, CEC_ADAP_G_LOG_ADDRS, &la) < 0)
                return -errno;
        if (la.num_log_addrs == 0 || la.log_addr[0] == CEC_LOG_ADDR_INVALID)
                return -EADDRNOTAVAIL;
        struct cec_msg m;
        memset(&m, 0, sizeof(m));
        m.len = 2;
        m.msg[0] = (uint8_t)(la.log_addr[0] << 4 | CEC_TV);
        m.msg[1] = CEC_MSG_GIVE_DEVICE_POWER_STATUS;
        m.reply = CEC_MSG_REPORT_POWER_STATUS;
        m.timeout = CEC_REPLY_WAIT_MS;
        if (ioctl(c->fd, CEC_TRANSMIT, &m) < 0)
                return -errno;
        c->sequence = m.sequence;
        return 0;
}

int cec_answer(struct cec *c)
{
        if (c->fake) {
                int a = c->fake_answer;
                c->fake_answer = -EAGAIN;
                return a;
        }
        for (;;) {
                struct cec_msg m;
                memset(&m, 0, sizeof(m));
                if (ioctl(c->fd, CEC_RECEIVE, &m) < 0)
                        return errno == EAGAIN ? -EAGAIN : -errno;
                if (c->sequence && m.sequence == c->sequence) {
                        c->sequence = 0;
                        if (!(m.tx_status & CEC_TX_STATUS_OK) || !(m.rx_status & CEC_RX_STATUS_OK))
                                return -ETIMEDOUT;
                }
                /* The reply, or a TV's own <Report Power Status> broadcast. */
                if ((m.msg[0] >> 4) == CEC_TV) {
                        int p = cec_parse_power_status(m.msg, m.len);
                        if (p >= 0)
                                return p;
                }
        }
}

void cec_close(struct cec *c)
{
        if (!c)
                return;
        if (c->fd >= 0)
                close(c->fd);
        free(c);
}
