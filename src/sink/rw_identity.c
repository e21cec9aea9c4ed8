/* The machine's identity for the push. See rw_identity.h.
 *
 *   4d3b0c0e8a7e4e2f9a1c0b5e6d7f8091
 */
#include "sink/rw_identity.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

#include "util/pfile.h"

/* Host names that distributions and board images set before anyone names the machine:
 * Raspberry Pi OS "raspberrypi", Debian/Ubuntu installers and cloud images, DietPi,
 * Armbian and Orange Pi images, and the kernel's and systemd's fallbacks. */
static const char *const default_names[] = {
    "raspberrypi", "raspbian", "localhost", "localhost.localdomain",
    "ubuntu",      "debian",   "dietpi",    "armbian",
    "orangepi",    "(none)",   "linux",     "fedora",
};

int rw_machine_id_parse(const char *text, size_t n, char *out)
{
        while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
                n--;
        if (n == 0 || (n == 13 && !memcmp(text, "uninitialized", 13)))
                return -ENODATA;
        if (n != RW_MACHINE_ID_LEN)
                return -EINVAL;
        for (size_t i = 0; i < n; i++)
                if (!((text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f')))
                        return -EINVAL;
        memcpy(out, text, n);
        out[n] = '\0';
        return 0;
}

int rw_machine_id_read(const char *root, char *out)
{
        char buf[128];
        int r = read_file_at(root, "/etc/machine-id", buf, sizeof(buf));
        if (r < 0)
                return r;
        return rw_machine_id_parse(buf, (size_t)r, out);
}

bool rw_hostname_is_default(const char *name)
{
        for (size_t i = 0; i < sizeof(default_names) / sizeof(default_names[0]); i++)
                if (!strcasecmp(name, default_names[i]))
                        return true;
        return false;
}
