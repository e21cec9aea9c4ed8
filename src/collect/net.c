/* SPDX-License-Identifier: Apache-2.0 */
/* Source: the network of a signage player, on the host clock. Per physical interface
 * of ROOT/sys/class/net (Documentation/ABI/testing/sysfs-class-net): operstate,
 * carrier (reading it fails with EINVAL while the interface is administratively down:
 * missing then), carrier_changes; the Wi-Fi link quality and signal of
 * ROOT/proc/net/wireless; whether ROOT/proc/net/route or ROOT/proc/net/ipv6_route has
 * a default route (the formats in collect/net_parse.c); and whether the remote-write
 * receiver answered the last push, read from the push's counters the loop copies in
 * (core/counters.h: an accepted push moves last_success_s, a failed one failed),
 * never from the network itself.
 *
 * Interfaces are found at start and every minute, and at once when one is found gone
 * (a USB adapter pulled). An interface's three files are kept open from the scan that
 * found it and read with one pread each a sample (collect/sysfs_obj.h); /proc/net's
 * files are read to their end, as their records can span more than one read (a
 * seq_file read stops at a page). An empty read of a sysfs file is no value this
 * sample, said only when the next read is empty too. lo and virtual interfaces (bridges,
 * veth, docker0, tun, wireguard: their sysfs directory lies under
 * /sys/devices/virtual/net, where the kernel's net/core/net-sysfs.c puts a device with
 * no parent) are left out: their link says nothing of whether the player is online.
 * node_exporter's netclass collector lists them all and leaves the choice to a name
 * pattern (--collector.netclass.ignored-devices); a player has no one to set one.
 *
 * Frame fields: net.nif, net.ifs[], net.default_route, net.push_reachable. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/net_parse.h"
#include "collect/sysfs_obj.h"
#include "core/counters.h"
#include "core/vigil.h"
#include "util/attr.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/parse.h"
#include "util/pfile.h"
#include "util/hot.h"

#define NET_DIR   "/sys/class/net"
#define RESCAN_NS (60 * NSEC_PER_SEC)
#define PROC_MAX  (64 * 1024)

enum if_file { IF_OPERSTATE, IF_CARRIER, IF_CARRIER_CHANGES, IF_FILES };
static const char *const if_files[IF_FILES] = {"operstate", "carrier", "carrier_changes"};

struct if_state {
        char name[16];
        struct sysfs_obj file; /* its files, kept open */
        unsigned warned;       /* bit per enum if_file */
};

struct net_state {
        char root[4096];
        unsigned n;
        struct if_state ifs[VIGIL_MAX_NETIFS];
        int64_t scanned_ns;
        bool rescan; /* an interface was found gone: scan at the next sample */
        struct pfile wireless, route, route6;
        /* The push's counters at the last look, and what they said. */
        uint64_t push_failed;
        double push_success_s;
        double push_reachable;
};

/* Whether ROOT/sys/class/net/name is a virtual device: its link points into
 * devices/virtual/. A directory (a fixture tree's plain copy) is a physical one. */
static bool is_virtual(const char *root, const char *name)
{
        char path[4400], target[512];
        char rel[320]; /* a directory entry's name: at most 255 bytes */
        snprintf(rel, sizeof(rel), NET_DIR "/%s", name);
        if (path_join(path, sizeof(path), root, rel) < 0)
                return true;
        ssize_t n = readlink(path, target, sizeof(target) - 1);
        if (n < 0)
                return false;
        target[n] = '\0';
        return strstr(target, "/virtual/") != NULL;
}

static int by_name(const void *a, const void *b)
{
        return strcmp(((const struct if_state *)a)->name, ((const struct if_state *)b)->name);
}

/* The interfaces now: known ones keep their state and open files (those that could not
 * be opened are tried again), new ones have theirs opened, gone ones closed. */
static void scan(struct net_state *s)
{
        struct if_state old[VIGIL_MAX_NETIFS];
        unsigned nold = s->n;
        memcpy(old, s->ifs, sizeof(old));
        s->n = 0;
        s->rescan = false;
        char path[4200];
        DIR *dir = path_join(path, sizeof(path), s->root, NET_DIR) == 0 ? opendir(path) : NULL;
        struct dirent *e;
        while (dir && (e = readdir(dir)) && s->n < VIGIL_MAX_NETIFS) {
                const char *nm = e->d_name;
                if (nm[0] == '.' || !strcmp(nm, "lo") || strlen(nm) >= sizeof(old[0].name) ||
                    is_virtual(s->root, nm))
                        continue;
                struct if_state st;
                memset(&st, 0, sizeof(st));
                copy_bounded(st.name, sizeof(st.name), nm, strlen(nm));
                char rel[sizeof(st.name) + sizeof(NET_DIR)];
                snprintf(rel, sizeof(rel), NET_DIR "/%s", st.name);
                sysfs_obj_init(&st.file, s->root, rel, if_files, IF_FILES);
                for (unsigned i = 0; i < nold; i++)
                        if (!old[i].file.gone && !strcmp(old[i].name, st.name)) {
                                st = old[i];
                                old[i].name[0] = '\0'; /* taken over */
                        }
                sysfs_obj_open(&st.file);
                s->ifs[s->n++] = st;
        }
        if (dir)
                closedir(dir);
        for (unsigned i = 0; i < nold; i++)
                if (old[i].name[0])
                        sysfs_obj_close(&old[i].file);
        qsort(s->ifs, s->n, sizeof(s->ifs[0]), by_name);
}

static int net_init(struct vigil_ctx *ctx, void **ret_state)
{
        struct net_state *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        const char *root = ctx->opt->root;
        snprintf(s->root, sizeof(s->root), "%s", root ? root : "");
        s->wireless.fd = s->route.fd = s->route6.fd = -1;
        s->push_success_s = NAN;
        s->push_reachable = NAN;
        scan(s);
        if (s->n == 0) {
                free(s);
                return -ENODEV;
        }
        /* Absent without Wi-Fi or IPv6: those values stay missing. */
        (void)pfile_open(&s->wireless, root, "/proc/net/wireless", PROC_MAX);
        (void)pfile_open(&s->route, root, "/proc/net/route", PROC_MAX);
        (void)pfile_open(&s->route6, root, "/proc/net/ipv6_route", PROC_MAX);
        *ret_state = s;
        return 0;
}

static bool if_exists(const struct net_state *s, const struct if_state *f)
{
        char rel[64], path[4200];
        snprintf(rel, sizeof(rel), NET_DIR "/%s", f->name);
        return path_join(path, sizeof(path), s->root, rel) == 0 && access(path, F_OK) == 0;
}

/* One sysfs file of interface f, with one pread of its kept descriptor: its first line
 * into buf, 0; -ENODATA for an empty read not said (see the top); or -errno, said once
 * but for carrier's EINVAL, which only means the interface is down. */
VIGIL_HOT static int read_if(struct net_state *s, struct if_state *f, enum if_file k, char *buf,
                             size_t cap)
{
        int n = sysfs_obj_read(&f->file, k, buf, cap);
        /* Quiet: carrier's EINVAL, and an interface that went away (a USB dongle pulled:
         * it is dropped at the next sample). */
        if (f->file.gone) {
                s->rescan = true;
                return n < 0 ? n : -ENODEV;
        }
        bool quiet = (k == IF_CARRIER && n == -EINVAL) || (n == -ENOENT && !if_exists(s, f));
        if (n < 0 && !quiet && !(f->warned & (1u << k))) {
                f->warned |= 1u << k;
                char path[4400];
                sysfs_obj_path(&f->file, k, path, sizeof(path));
                vlog(LOG_WARN, "network: cannot read %s: %s", path, strerror(-n));
        }
        if (n < 0)
                return n;
        buf[attr_trim_len(buf, (size_t)n)] = '\0';
        return sysfs_obj_skip_empty(&f->file, k, n) ? -ENODATA : 0;
}

static void bad_if(struct if_state *f, enum if_file k, const char *text)
{
        if (f->warned & (1u << k))
                return;
        f->warned |= 1u << k;
        vlog(LOG_WARN, "network: %s/%s: unexpected \"%s\"", f->name, if_files[k], text);
}

static void sample_if(struct net_state *s, struct if_state *f, struct net_iface *o)
{
        char buf[64];
        uint64_t v;
        snprintf(o->name, sizeof(o->name), "%s", f->name);
        sysfs_obj_retry(&f->file);
        if (read_if(s, f, IF_OPERSTATE, buf, sizeof(buf)) == 0 &&
            net_parse_operstate(buf, &o->up) < 0)
                bad_if(f, IF_OPERSTATE, buf);
        if (read_if(s, f, IF_CARRIER, buf, sizeof(buf)) == 0) {
                if (parse_u64(buf, strlen(buf), &v) == 0 && v <= 1)
                        o->carrier = (double)v;
                else
                        bad_if(f, IF_CARRIER, buf);
        }
        if (read_if(s, f, IF_CARRIER_CHANGES, buf, sizeof(buf)) == 0) {
                if (parse_u64(buf, strlen(buf), &v) == 0)
                        o->carrier_changes = (double)v;
                else
                        bad_if(f, IF_CARRIER_CHANGES, buf);
        }
        /* An interface whose operstate the driver leaves "unknown" is up when it has a
         * carrier (what NetworkManager and systemd-networkd take it for). */
        if (!VAL_OK(o->up) && VAL_OK(o->carrier))
                o->up = o->carrier;
}

/* The push's counters: an accepted push since the last look says reachable, a failed
 * one (and none accepted) unreachable; nothing new keeps the last answer. */
static void sample_push(struct net_state *s, const struct counters *x, struct net_frame *out)
{
        if (!x || !x->push.on)
                return;
        const struct push_counters *p = &x->push;
        bool success = VAL_OK(p->last_success_s) &&
                       (!VAL_OK(s->push_success_s) || p->last_success_s > s->push_success_s);
        if (success)
                s->push_reachable = 1;
        else if (p->failed > s->push_failed)
                s->push_reachable = 0;
        s->push_failed = p->failed;
        s->push_success_s = p->last_success_s;
        out->push_reachable = s->push_reachable;
}

VIGIL_HOT static int net_sample(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct net_state *s = state;
        struct net_frame *out = &ctx->frame->net;
        net_frame_clear(out);
        if (s->rescan || !s->scanned_ns || t->mono_ns - s->scanned_ns >= RESCAN_NS) {
                if (s->scanned_ns || s->rescan)
                        scan(s);
                s->scanned_ns = t->mono_ns;
        }
        int nw = pfile_is_open(&s->wireless) ? pfile_read(&s->wireless) : -ENOENT;
        out->nif = s->n;
        for (unsigned i = 0; i < s->n; i++) {
                sample_if(s, &s->ifs[i], &out->ifs[i]);
                struct wireless_stats w;
                if (nw > 0 &&
                    net_parse_wireless(s->wireless.buf, (size_t)nw, s->ifs[i].name, &w) == 0) {
                        out->ifs[i].wifi_quality = w.quality;
                        if (VAL_OK(w.level) && w.level < 0)
                                out->ifs[i].wifi_signal_dbm = w.level;
                }
        }
        int n4 = pfile_is_open(&s->route) ? pfile_read(&s->route) : -ENOENT;
        int n6 = pfile_is_open(&s->route6) ? pfile_read(&s->route6) : -ENOENT;
        if (n4 >= 0 || n6 >= 0)
                out->default_route =
                    (n4 > 0 && net_route_has_default(s->route.buf, (size_t)n4)) ||
                    (n6 > 0 && net_ipv6_route_has_default(s->route6.buf, (size_t)n6));
        sample_push(s, ctx->extra, out);
        return 0;
}

static void net_fini(void *state)
{
        struct net_state *s = state;
        if (!s)
                return;
        pfile_close(&s->wireless);
        pfile_close(&s->route);
        pfile_close(&s->route6);
        for (unsigned i = 0; i < s->n; i++)
                sysfs_obj_close(&s->ifs[i].file);
        free(s);
}

const struct vigil_source vigil_source_net = {
    .name = "net",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .init = net_init,
    .sample = net_sample,
    .fini = net_fini,
};
