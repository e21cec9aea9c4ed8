/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the screen and network sources keep their sysfs files open
 * (collect/sysfs_obj.h) on a copy of the Pi 4 tree.
 *
 * That a value comes from the descriptor kept since the scan, not from a path opened
 * again each sample, shows in a file replaced by rename: the kept descriptor still
 * reads the old inode (real sysfs never renames; tests/lib.sh put_in_place), while a
 * value written in place is read at once.
 *
 * A removed object: a regular file keeps its bytes for an open descriptor after an
 * unlink, unlike sysfs, whose kept descriptor fails with ENODEV once the kobject is gone
 * (fs/kernfs/file.c). So the file of the object that goes away here is a link to a
 * kernel file whose object really goes away: /proc/PID/comm of a child process named
 * after the value ("up", "connected"); once the child is reaped, a read of the kept
 * descriptor fails (ESRCH, fs/proc/base.c comm_show()), as sysfs's does. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "source_env.h"

#include "daemon/registry.h"

/* The registry's source named name. */
static const struct vigil_source *source(const char *name)
{
        for (size_t i = 0; vigil_sources[i]; i++)
                if (!strcmp(vigil_sources[i]->name, name))
                        return vigil_sources[i];
        fail_msg("no source %s", name);
        return NULL;
}

#define NET     source("net")
#define DISPLAY source("display")

/* A child process named name (its /proc/PID/comm reads "name\n") that waits to be
 * killed. Returns its pid once the name is set. */
static pid_t named_child(const char *name)
{
        int p[2];
        assert_int_equal(pipe(p), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                prctl(PR_SET_NAME, name, 0, 0, 0);
                (void)!write(p[1], "x", 1);
                for (;;)
                        pause();
        }
        char c;
        assert_int_equal(read(p[0], &c, 1), 1);
        close(p[0]);
        close(p[1]);
        return pid;
}

static void end_child(pid_t pid)
{
        kill(pid, SIGKILL);
        assert_int_equal(waitpid(pid, NULL, 0), pid);
}

/* rel (a file of the tree) becomes a link to the comm of process pid. */
static void link_to_comm(struct env *e, const char *rel, pid_t pid)
{
        char target[64];
        snprintf(target, sizeof(target), "/proc/%d/comm", (int)pid);
        unlink(at(e, rel));
        assert_int_equal(symlink(target, at(e, rel)), 0);
}

/* Replace rel by a new file renamed over it (a new inode). */
static void rename_over(struct env *e, const char *rel, const char *text)
{
        char tmp[1100];
        snprintf(tmp, sizeof(tmp), "%s.new", at(e, rel));
        int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
        close(fd);
        assert_int_equal(rename(tmp, at(e, rel)), 0);
}

static void put(struct env *e, const char *rel, const char *text)
{
        write_file(e, rel, text, strlen(text));
}

static const struct net_iface *iface(struct env *e, const char *name)
{
        const struct net_frame *n = &e->frame.net;
        for (unsigned i = 0; i < n->nif; i++)
                if (!strcmp(n->ifs[i].name, name))
                        return &n->ifs[i];
        return NULL;
}

static const struct display_conn *conn(struct env *e, const char *name)
{
        const struct display_frame *d = &e->frame.display;
        for (unsigned i = 0; i < d->nconn; i++)
                if (!strcmp(d->conn[i].name, name))
                        return &d->conn[i];
        return NULL;
}

/* Move the clock on by sec seconds, then sample. */
static void sample_after(struct env *e, const struct vigil_source *s, void *st, int sec)
{
        e->tick.mono_ns += sec * SEC;
        assert_int_equal(src_sample(e, s, st), 0);
}

static void test_net_kept_descriptor(void **state)
{
        (void)state;
        struct env *e = env_new("pi4");
        void *st = src_init(e, NET);
        sample_after(e, NET, st, 5);
        assert_float_equal(iface(e, "wlan0")->up, 1, 0);
        assert_float_equal(iface(e, "wlan0")->carrier_changes, 2, 0);
        /* Written in place, as sysfs changes a value: read at once. */
        put(e, "sys/class/net/wlan0/operstate", "down\n");
        put(e, "sys/class/net/wlan0/carrier_changes", "3\n");
        sample_after(e, NET, st, 5);
        assert_float_equal(iface(e, "wlan0")->up, 0, 0);
        assert_float_equal(iface(e, "wlan0")->carrier_changes, 3, 0);
        /* Caught between a rewrite's truncation and its write: no value, then the new
         * one; nothing made up in between. */
        put(e, "sys/class/net/wlan0/carrier_changes", "");
        sample_after(e, NET, st, 5);
        assert_true(isnan(iface(e, "wlan0")->carrier_changes));
        put(e, "sys/class/net/wlan0/carrier_changes", "4\n");
        sample_after(e, NET, st, 5);
        assert_float_equal(iface(e, "wlan0")->carrier_changes, 4, 0);
        /* A new inode at the path: the kept descriptor still reads the old one. */
        rename_over(e, "sys/class/net/wlan0/operstate", "up\n");
        rename_over(e, "sys/class/net/wlan0/carrier_changes", "5\n");
        sample_after(e, NET, st, 5);
        assert_float_equal(iface(e, "wlan0")->up, 0, 0);
        assert_float_equal(iface(e, "wlan0")->carrier_changes, 4, 0);
        NET->fini(st);
        env_free(e);
}

static void test_display_kept_descriptor(void **state)
{
        (void)state;
        struct env *e = env_new("pi4");
        void *st = src_init(e, DISPLAY);
        sample_after(e, DISPLAY, st, 5);
        assert_float_equal(conn(e, "HDMI-A-1")->dpms, 0, 0);
        assert_float_equal(e->frame.display.cec_power, 0, 0);
        put(e, "sys/class/drm/card1-HDMI-A-1/dpms", "Off\n");
        put(e, "dev/cec0", "power 1\n");
        sample_after(e, DISPLAY, st, 5);
        assert_float_equal(conn(e, "HDMI-A-1")->dpms, 3, 0);
        assert_float_equal(e->frame.display.cec_power, 1, 0);
        /* The fake adapter's file caught empty: not answered this time. */
        put(e, "dev/cec0", "");
        sample_after(e, DISPLAY, st, 5);
        assert_true(isnan(e->frame.display.cec_power));
        /* A new inode at the path: the kept descriptors still read the old ones. */
        rename_over(e, "sys/class/drm/card1-HDMI-A-1/dpms", "On\n");
        rename_over(e, "dev/cec0", "power 0\n");
        sample_after(e, DISPLAY, st, 5);
        assert_float_equal(conn(e, "HDMI-A-1")->dpms, 3, 0);
        assert_true(isnan(e->frame.display.cec_power));
        DISPLAY->fini(st);
        env_free(e);
}

/* usb0, a USB network adapter whose operstate is a kernel object of its own. */
static pid_t plug_usb0(struct env *e)
{
        run_cmd("mkdir -p '%s'", at(e, "sys/class/net/usb0"));
        put(e, "sys/class/net/usb0/carrier", "1\n");
        put(e, "sys/class/net/usb0/carrier_changes", "1\n");
        pid_t pid = named_child("up");
        link_to_comm(e, "sys/class/net/usb0/operstate", pid);
        return pid;
}

static void test_net_gone_and_new(void **state)
{
        (void)state;
        struct env *e = env_new("pi4");
        pid_t up = plug_usb0(e);
        void *st = src_init(e, NET);
        sample_after(e, NET, st, 1);
        assert_non_null(iface(e, "usb0"));
        assert_float_equal(iface(e, "usb0")->up, 1, 0);
        /* Rebound under the same name: the kept descriptor fails, the path is opened
         * again, and the new object's value is read in the same sample. */
        pid_t down = named_child("down");
        end_child(up);
        link_to_comm(e, "sys/class/net/usb0/operstate", down);
        sample_after(e, NET, st, 1);
        assert_float_equal(iface(e, "usb0")->up, 0, 0);
        /* Pulled: the object and its directory go. It is not reported with the last
         * values; it is dropped at the next sample, long before the minute's rescan. */
        end_child(down);
        run_cmd("rm -r '%s'", at(e, "sys/class/net/usb0"));
        sample_after(e, NET, st, 1);
        assert_true(!iface(e, "usb0") || isnan(iface(e, "usb0")->up));
        sample_after(e, NET, st, 1);
        assert_null(iface(e, "usb0"));
        assert_non_null(iface(e, "wlan0"));
        assert_float_equal(iface(e, "wlan0")->up, 1, 0);
        /* Plugged in again: found by the rescan a minute after the last scan (the one
         * that dropped it), as before the files were kept open, and read from then on. */
        pid_t again = plug_usb0(e);
        sample_after(e, NET, st, 59);
        assert_null(iface(e, "usb0"));
        sample_after(e, NET, st, 1);
        assert_non_null(iface(e, "usb0"));
        assert_float_equal(iface(e, "usb0")->up, 1, 0);
        end_child(again);
        NET->fini(st);
        env_free(e);
}

static void test_display_gone(void **state)
{
        (void)state;
        struct env *e = env_new("pi4");
        const char *dir = "sys/class/drm/card2-DP-1";
        run_cmd("mkdir -p '%s'", at(e, dir));
        put(e, "sys/class/drm/card2-DP-1/enabled", "enabled\n");
        put(e, "sys/class/drm/card2-DP-1/dpms", "On\n");
        put(e, "sys/class/drm/card2-DP-1/edid", "");
        pid_t pid = named_child("connected");
        link_to_comm(e, "sys/class/drm/card2-DP-1/status", pid);
        void *st = src_init(e, DISPLAY);
        sample_after(e, DISPLAY, st, 1);
        assert_float_equal(conn(e, "DP-1")->connected, 1, 0);
        /* A DisplayPort MST screen unplugged: its connector goes. */
        end_child(pid);
        run_cmd("rm -r '%s'", at(e, dir));
        sample_after(e, DISPLAY, st, 1);
        assert_true(!conn(e, "DP-1") || isnan(conn(e, "DP-1")->connected));
        sample_after(e, DISPLAY, st, 1);
        assert_null(conn(e, "DP-1"));
        assert_float_equal(conn(e, "HDMI-A-1")->connected, 1, 0);
        assert_int_equal(e->frame.display.nconn, 2);
        DISPLAY->fini(st);
        env_free(e);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_net_kept_descriptor),
            cmocka_unit_test(test_display_kept_descriptor),
            cmocka_unit_test(test_net_gone_and_new),
            cmocka_unit_test(test_display_gone),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
