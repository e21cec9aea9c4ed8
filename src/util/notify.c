/* SPDX-License-Identifier: Apache-2.0 */
/* sd_notify without libsystemd. See notify.h.
 *
 *   NOTIFY_SOCKET=/run/systemd/notify  WATCHDOG_USEC=30000000  WATCHDOG_PID=812 */
#include "util/notify.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/parse.h"

/* The socket address $NOTIFY_SOCKET names, in *ret_addr / *ret_len. */
static int notify_address(const char *name, struct sockaddr_un *ret_addr, socklen_t *ret_len)
{
        size_t n = strlen(name);
        if (name[0] != '/' && name[0] != '@')
                return -EAFNOSUPPORT;
        if (n < 2 || n > sizeof(ret_addr->sun_path))
                return -ENAMETOOLONG;
        memset(ret_addr, 0, sizeof(*ret_addr));
        ret_addr->sun_family = AF_UNIX;
        memcpy(ret_addr->sun_path, name, n);
        /* An abstract name is exactly its bytes after a NUL: no terminator counted. */
        if (name[0] == '@')
                ret_addr->sun_path[0] = '\0';
        *ret_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
        return 0;
}

int notify_send(const char *state)
{
        const char *name = getenv("NOTIFY_SOCKET");
        struct sockaddr_un addr;
        socklen_t len;
        if (!name || !name[0])
                return 0;
        int r = notify_address(name, &addr, &len);
        if (r < 0)
                return r;
        int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        size_t n = strlen(state);
        ssize_t w = sendto(fd, state, n, MSG_NOSIGNAL, (const struct sockaddr *)&addr, len);
        r = w < 0 ? -errno : (size_t)w == n ? 1 : -EMSGSIZE;
        close(fd);
        return r;
}

int64_t notify_watchdog_ns(void)
{
        const char *usec = getenv("WATCHDOG_USEC");
        const char *pid = getenv("WATCHDOG_PID");
        uint64_t us, p;
        if (!usec || parse_u64(usec, strlen(usec), &us) < 0 || us == 0 ||
            us > (uint64_t)INT64_MAX / 1000)
                return 0;
        if (pid && (parse_u64(pid, strlen(pid), &p) < 0 || p != (uint64_t)getpid()))
                return 0;
        return (int64_t)us * 1000;
}
