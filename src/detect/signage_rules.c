/* SPDX-License-Identifier: Apache-2.0 */
/* The signage player's rules. See signage_rules.h. Their events.log lines:
 *   type=DISPLAY connector=HDMI-A-1 state=disconnected monitor="DELL P2419H" serial="7XQ"
 *   type=DISPLAY_DPMS connector=HDMI-A-1 dpms=Off
 *   type=DISPLAY_MONITOR connector=HDMI-A-1 from="DELL P2419H 7XQ" to="LG FHD 1A2"
 *   type=DISPLAY_CEC power=standby
 *   type=NETWORK_LINK interface=wlan0 state=down carrier_changes=7
 *   type=NETWORK state=offline reason="no default route"
 *   type=SD_WEAR state=worn device=mmcblk0 life_time=90-100% pre_eol=warning
 *     endurance_days=120 */
#include "detect/signage_rules.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect/display_parse.h"
#include "core/event_kinds.h"
#include "core/eventlog.h"
#include "core/vigil.h"
#include "util/log.h"
#include "util/hot.h"

#define LINE_MAX_ 512

struct conn_mem {
        char name[32];
        double connected, dpms; /* NAN: not seen */
        char ident[64];         /* "name serial" of the last monitor seen */
};

struct if_mem {
        char name[16];
        double link; /* NAN: not seen */
};

struct signage_rules {
        struct conn_mem conn[VIGIL_MAX_CONNECTORS];
        unsigned nconn;
        struct if_mem ifs[VIGIL_MAX_NETIFS];
        unsigned nif;
        int online; /* -1 unknown */
        double cec; /* NAN unknown */
        int worn;   /* -1 unknown */
        signage_sink_fn fn;
        void *arg;
        int64_t real_ns;
        unsigned sent;
};

struct signage_rules *signage_rules_new(void)
{
        struct signage_rules *st = calloc(1, sizeof(*st));
        if (!st)
                return NULL;
        st->online = st->worn = -1;
        st->cec = NAN;
        return st;
}

void signage_rules_free(struct signage_rules *st)
{
        free(st);
}

static void send(struct signage_rules *st, struct strbuf *sb)
{
        st->fn(st->arg, st->real_ns, sb->buf);
        st->sent++;
}

/* " key="value"", a '"' in the value written as '\''. */
static void put_quoted(struct strbuf *sb, const char *key, const char *v)
{
        sb_printf(sb, " %s=\"", key);
        for (; *v; v++)
                sb_putc(sb, *v == '"' ? '\'' : *v);
        sb_putc(sb, '"');
}

static struct conn_mem *conn_mem(struct signage_rules *st, const char *name)
{
        for (unsigned i = 0; i < st->nconn; i++)
                if (!strcmp(st->conn[i].name, name))
                        return &st->conn[i];
        if (st->nconn == VIGIL_MAX_CONNECTORS)
                return NULL;
        struct conn_mem *m = &st->conn[st->nconn++];
        snprintf(m->name, sizeof(m->name), "%s", name);
        m->connected = m->dpms = NAN;
        return m;
}

static struct if_mem *if_mem(struct signage_rules *st, const char *name)
{
        for (unsigned i = 0; i < st->nif; i++)
                if (!strcmp(st->ifs[i].name, name))
                        return &st->ifs[i];
        if (st->nif == VIGIL_MAX_NETIFS)
                return NULL;
        struct if_mem *m = &st->ifs[st->nif++];
        snprintf(m->name, sizeof(m->name), "%s", name);
        m->link = NAN;
        return m;
}

static void step_conn(struct signage_rules *st, const struct display_conn *c)
{
        struct conn_mem *m = conn_mem(st, c->name);
        char line[LINE_MAX_], ident[64];
        struct strbuf sb;
        if (!m)
                return;
        snprintf(ident, sizeof(ident), "%s%s%s", c->monitor, c->monitor[0] ? " " : "", c->serial);
        if (VAL_OK(c->connected)) {
                if (VAL_OK(m->connected) && m->connected != c->connected) {
                        sb_init_fixed(&sb, line, sizeof(line));
                        event_begin(&sb, EV_DISPLAY);
                        sb_printf(&sb, " connector=%s state=%s", c->name,
                                  c->connected > 0 ? "connected" : "disconnected");
                        /* The monitor plugged in, or the one that was unplugged. */
                        const char *mon = c->connected > 0 ? c->monitor : "";
                        if (mon[0])
                                put_quoted(&sb, "monitor", mon);
                        if (c->connected > 0 && c->serial[0])
                                put_quoted(&sb, "serial", c->serial);
                        send(st, &sb);
                }
                m->connected = c->connected;
        }
        if (!(c->connected > 0))
                return;
        if (VAL_OK(c->dpms)) {
                if (VAL_OK(m->dpms) && m->dpms != c->dpms) {
                        sb_init_fixed(&sb, line, sizeof(line));
                        event_begin(&sb, EV_DISPLAY_DPMS);
                        sb_printf(&sb, " connector=%s dpms=%s", c->name, drm_dpms_name(c->dpms));
                        send(st, &sb);
                }
                m->dpms = c->dpms;
        }
        if (ident[0]) {
                if (m->ident[0] && strcmp(m->ident, ident)) {
                        sb_init_fixed(&sb, line, sizeof(line));
                        event_begin(&sb, EV_DISPLAY_MONITOR);
                        sb_printf(&sb, " connector=%s", c->name);
                        put_quoted(&sb, "from", m->ident);
                        put_quoted(&sb, "to", ident);
                        send(st, &sb);
                }
                snprintf(m->ident, sizeof(m->ident), "%s", ident);
        }
}

VIGIL_HOT static void step_cec(struct signage_rules *st, double p)
{
        if (!VAL_OK(p))
                return;
        bool changed = VAL_OK(st->cec) ? p != st->cec : p != 0;
        st->cec = p;
        if (!changed)
                return;
        char line[LINE_MAX_];
        struct strbuf sb;
        sb_init_fixed(&sb, line, sizeof(line));
        event_begin(&sb, EV_DISPLAY_CEC);
        sb_printf(&sb, " power=%s", cec_power_name(p));
        send(st, &sb);
}

/* 1 an interface with a link, 0 down, NAN unknown. */
static double link_of(const struct net_iface *n)
{
        if (VAL_OK(n->up) && n->up <= 0)
                return 0;
        if (VAL_OK(n->carrier))
                return n->carrier > 0;
        return n->up;
}

VIGIL_HOT static void step_net(struct signage_rules *st, const struct net_frame *n)
{
        char line[LINE_MAX_];
        struct strbuf sb;
        bool any_known = false, any_link = false;
        for (unsigned i = 0; i < n->nif && i < VIGIL_MAX_NETIFS; i++) {
                const struct net_iface *f = &n->ifs[i];
                double l = link_of(f);
                struct if_mem *m = if_mem(st, f->name);
                if (!VAL_OK(l) || !m)
                        continue;
                any_known = true;
                any_link |= l > 0;
                if (VAL_OK(m->link) && m->link != l) {
                        sb_init_fixed(&sb, line, sizeof(line));
                        event_begin(&sb, EV_NETWORK_LINK);
                        sb_printf(&sb, " interface=%s state=%s", f->name, l > 0 ? "up" : "down");
                        if (VAL_OK(f->carrier_changes))
                                sb_printf(&sb, " carrier_changes=%.0f", f->carrier_changes);
                        send(st, &sb);
                }
                m->link = l;
        }
        if (!any_known)
                return;
        bool route = !VAL_OK(n->default_route) || n->default_route > 0;
        int online = any_link && route;
        /* At start only offline is news. */
        bool changed = st->online < 0 ? !online : online != st->online;
        st->online = online;
        if (!changed)
                return;
        sb_init_fixed(&sb, line, sizeof(line));
        event_begin(&sb, EV_NETWORK);
        sb_printf(&sb, " state=%s", online ? "online" : "offline");
        if (!online)
                put_quoted(&sb, "reason",
                           any_link ? "no default route" : "no interface has a link");
        send(st, &sb);
}

static double worse(double a, double b)
{
        return !VAL_OK(a) || (VAL_OK(b) && b > a) ? b : a;
}

VIGIL_HOT static void step_sd(struct signage_rules *st, const struct sd_frame *sd)
{
        if (!sd->device[0])
                return;
        double life = worse(sd->life_time_a, sd->life_time_b);
        bool known = VAL_OK(life) || VAL_OK(sd->pre_eol) || VAL_OK(sd->endurance_s);
        if (!known)
                return;
        int worn = (VAL_OK(sd->pre_eol) && sd->pre_eol >= 2) || (VAL_OK(life) && life >= 10) ||
                   (VAL_OK(sd->endurance_s) && sd->endurance_s < SD_WEAR_DAYS * 86400);
        bool changed = st->worn < 0 ? worn : worn != st->worn;
        st->worn = worn;
        if (!changed)
                return;
        char line[LINE_MAX_];
        struct strbuf sb;
        sb_init_fixed(&sb, line, sizeof(line));
        event_begin(&sb, EV_SD_WEAR);
        sb_printf(&sb, " state=%s device=%s", worn ? "worn" : "ok", sd->device);
        if (VAL_OK(life) && life >= 1 && life <= 10)
                sb_printf(&sb, " life_time=%.0f-%.0f%%", (life - 1) * 10, life * 10);
        else if (VAL_OK(life) && life == 11)
                sb_puts(&sb, " life_time=exceeded");
        static const char *const eol[] = {"undefined", "normal", "warning", "urgent"};
        if (VAL_OK(sd->pre_eol) && sd->pre_eol >= 0 && sd->pre_eol <= 3)
                sb_printf(&sb, " pre_eol=%s", eol[(int)sd->pre_eol]);
        if (VAL_OK(sd->endurance_s))
                sb_printf(&sb, " endurance_days=%.0f", sd->endurance_s / 86400);
        send(st, &sb);
}

VIGIL_HOT unsigned signage_rules_step(struct signage_rules *st, const struct frame *f,
                                      int64_t real_ns, signage_sink_fn fn, void *arg)
{
        st->fn = fn;
        st->arg = arg;
        st->real_ns = real_ns;
        st->sent = 0;
        for (unsigned i = 0; i < f->display.nconn && i < VIGIL_MAX_CONNECTORS; i++)
                step_conn(st, &f->display.conn[i]);
        step_cec(st, f->display.cec_power);
        step_net(st, &f->net);
        step_sd(st, &f->storage.sd);
        return st->sent;
}

/* The daemon's sink: events.log, and the journal. */
static void to_eventlog(void *arg, int64_t real_ns, const char *line)
{
        struct vigil_ctx *ctx = arg;
        eventlog_printf(ctx->events, real_ns, "%s", line);
        vlog(LOG_WARN, "%s", line);
}

static int detector_init(struct vigil_ctx *ctx, void **ret_state)
{
        (void)ctx;
        struct signage_rules *st = signage_rules_new();
        if (!st)
                return -ENOMEM;
        *ret_state = st;
        return 0;
}

VIGIL_HOT static void detector_feed(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        signage_rules_step(state, ctx->frame, t->real_ns, to_eventlog, ctx);
}

static void detector_fini(void *state)
{
        signage_rules_free(state);
}

const struct vigil_detector vigil_detector_signage_rules = {
    .name = "signage-rules",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .init = detector_init,
    .feed = detector_feed,
    .fini = detector_fini,
};
