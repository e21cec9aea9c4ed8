/* SPDX-License-Identifier: Apache-2.0 */
/* The machine's identity for the push. See rw_identity.h.
 *
 *   4d3b0c0e8a7e4e2f9a1c0b5e6d7f8091
 */
#include "push/rw_identity.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "collect/hw_identity.h"
#include "util/log.h"
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

/* machine_id (rw_identity.h) unless the config set it, with the warnings a fleet of
 * cloned machines needs: said once, at start. */
static void add_machine_id(const char *who, const char *root, struct rw_label *labels, size_t *n,
                           bool have_id, const char *instance)
{
        char id[RW_MACHINE_ID_LEN + 1] = "";
        int r = have_id ? 0 : rw_machine_id_read(root, id);
        if (id[0]) {
                struct rw_label *l = &labels[(*n)++];
                snprintf(l->name, sizeof(l->name), "machine_id");
                snprintf(l->value, sizeof(l->value), "%s", id);
        } else if (r < 0) {
                vlog(LOG_WARN,
                     "%s: no machine ID in /etc/machine-id (%s): pushed %s carry no machine_id "
                     "label, and machines with the same host name merge into one (run "
                     "systemd-machine-id-setup, or set machine_id in external_labels)",
                     who,
                     r == -ENODATA ? "empty or uninitialized, an image not booted yet"
                                   : strerror(-r),
                     strcmp(who, "remote-write") ? "alerts" : "series");
        }
        if (rw_hostname_is_default(instance))
                vlog(LOG_WARN,
                     "%s: the instance label '%s' is a distribution's default host name, which "
                     "machines cloned from one image share; %s (give each machine its own host "
                     "name, or instance in external_labels)",
                     who, instance,
                     id[0] || have_id ? "machine_id still tells what they push apart"
                                      : "what they push merges into one");
}

size_t rw_push_labels(const char *who, const struct rw_config *cfg, const char *root,
                      struct rw_label *labels)
{
        size_t n = 0;
        char host[256];
        const char *instance = "";
        bool have_instance = false, have_job = false, have_id = false, have_hw = false;
        for (size_t i = 0; i < cfg->nlabels; i++) {
                labels[n++] = cfg->labels[i];
                if (!strcmp(cfg->labels[i].name, "instance")) {
                        have_instance = true;
                        instance = cfg->labels[i].value;
                }
                have_job |= !strcmp(cfg->labels[i].name, "job");
                have_id |= !strcmp(cfg->labels[i].name, "machine_id");
                have_hw |= !strcmp(cfg->labels[i].name, "hardware_id");
        }
        if (!have_instance && gethostname(host, sizeof(host) - 1) == 0) {
                host[sizeof(host) - 1] = '\0';
                struct rw_label *l = &labels[n++];
                snprintf(l->name, sizeof(l->name), "instance");
                snprintf(l->value, sizeof(l->value), "%s", host);
                instance = l->value;
        }
        if (!have_job) {
                struct rw_label *l = &labels[n++];
                snprintf(l->name, sizeof(l->name), "job");
                snprintf(l->value, sizeof(l->value), "vigil");
        }
        add_machine_id(who, root, labels, &n, have_id, instance);
        struct hw_identity hw;
        if (!have_hw && hw_identity_read(root, &hw) == 0) {
                struct rw_label *l = &labels[n++];
                snprintf(l->name, sizeof(l->name), "hardware_id");
                snprintf(l->value, sizeof(l->value), "%s", hw.id);
        }
        return n;
}
