/* SPDX-License-Identifier: Apache-2.0 */
/* `vigil health` and `vigil health clear`. See health_cmd.h. */
#include "daemon/health_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/eventlog.h"
#include "core/health.h"
#include "daemon/lock.h"
#include "detect/health_watch.h"
#include "util/clock.h"
#include "util/pfile.h"

static void print_unknown(const char *why, const char *dir)
{
        printf("unknown: %s (%s)\n", why, dir);
}

int health_cmd_show(const char *root, const char *log_dir, bool json, bool strict)
{
        struct health *h = malloc(sizeof(*h));
        struct strbuf sb;
        if (!h || sb_init_heap(&sb, 8192, HEALTH_FILE_MAX * 4) < 0) {
                free(h);
                print_unknown("out of memory", log_dir);
                return HEALTH_EXIT_UNKNOWN;
        }
        int code = HEALTH_EXIT_UNKNOWN;
        pid_t pid;
        int r = health_watch_load(h, root, log_dir);
        if (r == -ENOENT) {
                print_unknown("no health verdict kept here yet: vigil has not run", log_dir);
        } else if (r < 0) {
                char why[200];
                snprintf(why, sizeof(why), "cannot read %s: %s", HEALTH_FILE, strerror(-r));
                print_unknown(why, log_dir);
        } else if (lock_owner(log_dir, &pid) == -ESRCH) {
                /* A verdict nobody keeps up to date is not one to act on. */
                print_unknown("vigil is not running; the verdict kept is stale", log_dir);
        } else {
                enum health_state s = health_overall(h);
                code = s == HEALTH_UNHEALTHY || (strict && s == HEALTH_DEGRADED)
                           ? HEALTH_EXIT_PROBLEM
                           : HEALTH_EXIT_OK;
                if (json) {
                        health_json(h, &sb);
                } else {
                        health_line(h, &sb);
                        sb_putc(&sb, '\n');
                }
                fwrite(sb.buf, 1, sb.len, stdout);
        }
        /* The table for people (node-problem-detector logs a plugin's stderr). */
        if (!json && r == 0) {
                sb_reset(&sb);
                health_table(h, &sb);
                fwrite(sb.buf, 1, sb.len, stderr);
        }
        sb_free(&sb);
        free(h);
        return code;
}

/* No daemon: clear here, under the instance lock, and save. */
static int clear_here(const char *root, const char *log_dir, const char *component,
                      const char *reason)
{
        struct health *h = malloc(sizeof(*h));
        struct eventlog *el = NULL;
        int r = h ? health_watch_load(h, root, log_dir) : -ENOMEM;
        if (r < 0 && r != -ENOENT) {
                fprintf(stderr, "vigil: cannot read %s/%s: %s\n", log_dir, HEALTH_FILE,
                        strerror(-r));
                free(h);
                return 1;
        }
        if ((r = eventlog_open(&el, log_dir)) < 0) {
                fprintf(stderr, "vigil: cannot open %s/events.log: %s\n", log_dir, strerror(-r));
                free(h);
                return 1;
        }
        eventlog_set_tap(el, health_watch_tap, h);
        int n = health_watch_clear(h, el, component, reason, (double)now_real_ns() / 1e9);
        eventlog_close(el);
        if ((r = health_save(log_dir, h)) < 0) {
                fprintf(stderr, "vigil: cannot write %s/%s: %s\n", log_dir, HEALTH_FILE,
                        strerror(-r));
                free(h);
                return 1;
        }
        printf("%s: %d state%s cleared (%s)\n", component, n, n == 1 ? "" : "s", reason);
        free(h);
        return 0;
}

/* A daemon runs: hand it the request and wait for it to take it. */
static int clear_by_daemon(const char *log_dir, const char *component, const char *reason)
{
        char path[1200], line[300];
        snprintf(path, sizeof(path), "%s/%s", log_dir, HEALTH_CLEAR_REQUEST);
        int n = snprintf(line, sizeof(line), "%s\t%s\n", component, reason);
        /* Whole or not at all: the daemon may look at any moment. */
        int r = write_file_atomic(log_dir, HEALTH_CLEAR_REQUEST, line, (size_t)n);
        if (r < 0) {
                fprintf(stderr, "vigil: cannot write %s: %s\n", path, strerror(-r));
                return 1;
        }
        for (int i = 0; i < 200; i++) {
                struct timespec ts = {0, 50 * 1000 * 1000};
                nanosleep(&ts, NULL);
                if (access(path, F_OK) != 0) {
                        printf("%s: clear taken by the running vigil (%s); see `vigil health`\n",
                               component, reason);
                        return 0;
                }
        }
        unlink(path);
        fprintf(stderr, "vigil: the running vigil did not take the clear within 10 s\n");
        return 1;
}

int health_cmd_clear(const char *root, const char *log_dir, const char *component,
                     const char *reason)
{
        if (!health_name_ok(component)) {
                fprintf(stderr,
                        "vigil health clear: '%.40s' is not a component (gpuN, gpuN.PART, "
                        "host.PART, pi.PART, all)\n",
                        component);
                return 2;
        }
        if (!reason[0]) {
                fprintf(stderr, "vigil health clear: say why: vigil health clear %s \"REASON\"\n",
                        component);
                return 2;
        }
        pid_t owner = 0;
        int fd = lock_acquire(log_dir, &owner);
        if (fd == -EWOULDBLOCK)
                return clear_by_daemon(log_dir, component, reason);
        if (fd < 0) {
                fprintf(stderr, "vigil: cannot lock %s/vigil.pid: %s\n", log_dir, strerror(-fd));
                return 1;
        }
        int r = clear_here(root, log_dir, component, reason);
        close(fd);
        return r;
}
