/* SPDX-License-Identifier: Apache-2.0 */
/* systemd units' states through `systemctl show`. See systemd_unit.h. */
#include "collect/systemd_unit.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/clock.h"
#include "util/parse.h"
#include "util/spawn.h"
#include "util/strbuf.h"
#include "util/thread.h"

#define SHOW_PROPS "LoadState,ActiveState,SubState,Result,NRestarts,ExecMainCode,ExecMainStatus"

static void take(char *out, size_t cap, const char *v, size_t n)
{
        copy_bounded(out, cap, v, n);
}

int unit_show_parse(const char *text, size_t len, struct unit_state *ret)
{
        struct unit_state u;
        struct cursor c = cur_make(text, len);
        bool active = false;
        memset(&u, 0, sizeof(u));
        u.nrestarts = -1;
        while (!cur_eof(&c)) {
                const char *line;
                size_t n;
                int64_t v;
                cur_line(&c, &line, &n);
                const char *eq = memchr(line, '=', n);
                if (!eq)
                        continue;
                size_t k = (size_t)(eq - line), vn = n - k - 1;
                const char *val = eq + 1;
#define KEY(s) (k == sizeof(s) - 1 && !memcmp(line, s, k))
                if (KEY("ActiveState")) {
                        take(u.active, sizeof(u.active), val, vn);
                        active = vn > 0;
                } else if (KEY("LoadState")) {
                        u.loaded = vn == 6 && !memcmp(val, "loaded", 6);
                } else if (KEY("SubState")) {
                        take(u.sub, sizeof(u.sub), val, vn);
                } else if (KEY("Result")) {
                        take(u.result, sizeof(u.result), val, vn);
                } else if (KEY("NRestarts") && parse_i64(val, vn, &v) == 0 && v >= 0) {
                        u.nrestarts = v;
                } else if (KEY("ExecMainCode") && parse_i64(val, vn, &v) == 0 && v >= 0 && v < 16) {
                        u.main_code = (int)v;
                } else if (KEY("ExecMainStatus") && parse_i64(val, vn, &v) == 0 && v >= 0 &&
                           v < 256) {
                        u.main_status = (int)v;
                }
#undef KEY
        }
        if (!active)
                return -EINVAL;
        u.known = true;
        *ret = u;
        return 0;
}

void unit_main_describe(const struct unit_state *u, char *out, size_t cap)
{
        /* si_code of SIGCHLD, include/uapi/asm-generic/siginfo.h */
        switch (u->main_code) {
        case 1:
                snprintf(out, cap, "exited %d", u->main_status);
                break;
        case 2:
                snprintf(out, cap, "killed by signal %d", u->main_status);
                break;
        case 3:
                snprintf(out, cap, "dumped core on signal %d", u->main_status);
                break;
        default:
                snprintf(out, cap, "%s", "");
        }
}

struct unit_poller {
        pthread_t thread;
        pthread_mutex_t lock;
        pthread_cond_t cond;
        bool stop, poked;
        int64_t period_ns, last_ns;
        unsigned n;
        char names[UNIT_MAX][UNIT_NAME_MAX];
        struct unit_state state[UNIT_MAX];
        uint64_t reads[UNIT_MAX];
        char error[160];
};

/* One reading of unit i: its state, or why not into err. */
static void read_unit(const char *unit, struct unit_state *ret, char *err, size_t cap)
{
        const char *argv[] = {"systemctl", "show", "-p", SHOW_PROPS, "--", unit, NULL};
        char buf[4096];
        struct strbuf sb;
        struct spawn_result res;
        sb_init_fixed(&sb, buf, sizeof(buf));
        int r = spawn_capture(argv, UNIT_SHOW_TIMEOUT, sizeof(buf) - 1, &sb, &res);
        err[0] = '\0';
        if (r == -ENOENT || res.not_found)
                snprintf(err, cap, "systemctl not found");
        else if (r == -ETIMEDOUT)
                snprintf(err, cap, "systemctl show %s timed out", unit);
        else if (r < 0)
                snprintf(err, cap, "systemctl: %s", strerror(-r));
        else if (res.exit_status != 0 || unit_show_parse(sb.buf, sb.len, ret) < 0)
                snprintf(err, cap, "systemctl show %s: exit status %d, no state", unit,
                         res.exit_status);
        if (res.unreaped > 0)
                spawn_reap(res.unreaped);
}

static void *poller_main(void *arg)
{
        struct unit_poller *p = arg;
        pthread_mutex_lock(&p->lock);
        while (!p->stop) {
                int64_t now = now_mono_ns();
                int64_t gap = p->period_ns < UNIT_POLL_MIN_NS ? p->period_ns : UNIT_POLL_MIN_NS;
                int64_t due = p->last_ns + (p->poked ? gap : p->period_ns);
                if (p->last_ns && now < due) {
                        struct timespec ts = {.tv_sec = due / NSEC_PER_SEC,
                                              .tv_nsec = due % NSEC_PER_SEC};
                        pthread_cond_timedwait(&p->cond, &p->lock, &ts);
                        continue;
                }
                p->poked = false;
                p->last_ns = now;
                for (unsigned i = 0; i < p->n && !p->stop; i++) {
                        char name[UNIT_NAME_MAX], err[160];
                        struct unit_state u = {0};
                        memcpy(name, p->names[i], sizeof(name));
                        pthread_mutex_unlock(&p->lock);
                        read_unit(name, &u, err, sizeof(err));
                        pthread_mutex_lock(&p->lock);
                        if (!err[0]) {
                                p->state[i] = u;
                                p->reads[i]++;
                        }
                        memcpy(p->error, err, sizeof(p->error));
                }
        }
        pthread_mutex_unlock(&p->lock);
        return NULL;
}

int unit_poller_start(struct unit_poller **ret, const char *const *units, unsigned n,
                      int64_t period_ns)
{
        if (n == 0 || n > UNIT_MAX)
                return -EINVAL;
        struct unit_poller *p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&p->cond, &ca);
        pthread_condattr_destroy(&ca);
        pthread_mutex_init(&p->lock, NULL);
        p->n = n;
        p->period_ns = period_ns > 0 ? period_ns : UNIT_POLL_NS;
        for (unsigned i = 0; i < n; i++)
                copy_bounded(p->names[i], sizeof(p->names[i]), units[i], strlen(units[i]));
        int r = vigil_thread_create(&p->thread, poller_main, p);
        if (r < 0) {
                pthread_cond_destroy(&p->cond);
                pthread_mutex_destroy(&p->lock);
                free(p);
                return r;
        }
        *ret = p;
        return 0;
}

void unit_poller_poke(struct unit_poller *p)
{
        pthread_mutex_lock(&p->lock);
        p->poked = true;
        pthread_cond_signal(&p->cond);
        pthread_mutex_unlock(&p->lock);
}

bool unit_poller_get(struct unit_poller *p, unsigned i, struct unit_state *ret, uint64_t *ret_reads)
{
        if (i >= p->n)
                return false;
        pthread_mutex_lock(&p->lock);
        *ret = p->state[i];
        *ret_reads = p->reads[i];
        pthread_mutex_unlock(&p->lock);
        return true;
}

void unit_poller_error(struct unit_poller *p, char *out, size_t cap)
{
        pthread_mutex_lock(&p->lock);
        snprintf(out, cap, "%s", p->error);
        pthread_mutex_unlock(&p->lock);
}

void unit_poller_stop(struct unit_poller *p)
{
        if (!p)
                return;
        pthread_mutex_lock(&p->lock);
        p->stop = true;
        pthread_cond_signal(&p->cond);
        pthread_mutex_unlock(&p->lock);
        pthread_join(p->thread, NULL);
        pthread_cond_destroy(&p->cond);
        pthread_mutex_destroy(&p->lock);
        free(p);
}
