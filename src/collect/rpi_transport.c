/* SPDX-License-Identifier: Apache-2.0 */
/* The real mailbox transport (/dev/vcio) and the choice between it and the fake
 * firmware. See rpi_transport.h.
 *
 *   crw-rw---- 1 root video 246, 0 /dev/vcio     (what the real one opens) */
#include "collect/rpi_transport.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* The vcio driver's only ioctl; its size field is that of a pointer, so the number
 * differs between 32- and 64-bit user space, as the kernel's compat path expects. */
#define VCIO_IOC_MAGIC      100
#define IOCTL_MBOX_PROPERTY _IOWR(VCIO_IOC_MAGIC, 0, char *)

struct vcio_priv {
        int fd;
};

static int vcio_open(const char *path, void **ret_priv)
{
        struct vcio_priv *p = malloc(sizeof(*p));
        if (!p)
                return -ENOMEM;
        p->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (p->fd < 0) {
                int r = -errno;
                free(p);
                return r;
        }
        *ret_priv = p;
        return 0;
}

static int vcio_call(void *priv, uint32_t *buf, size_t cap)
{
        struct vcio_priv *p = priv;
        if (cap < 3 || buf[0] % 4 != 0 || buf[0] / 4 > cap)
                return -EINVAL;
        for (;;) {
                if (ioctl(p->fd, IOCTL_MBOX_PROPERTY, buf) >= 0)
                        return 0;
                if (errno != EINTR)
                        return -errno;
        }
}

static void vcio_close(void *priv)
{
        struct vcio_priv *p = priv;
        if (!p)
                return;
        if (p->fd >= 0)
                close(p->fd);
        free(p);
}

const struct rpi_transport_ops rpi_transport_vcio = {
    .name = "vcio",
    .open = vcio_open,
    .call = vcio_call,
    .close = vcio_close,
};

const struct rpi_transport_ops *rpi_transport_pick(const char *path)
{
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
                return &rpi_transport_fake;
        return &rpi_transport_vcio;
}
