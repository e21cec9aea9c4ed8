/* SPDX-License-Identifier: Apache-2.0 */
/* Findings from the signage player's events.log lines (detect/signage_rules.c): the
 * screens, the network and the card's wear, the same whether the daemon taps its own
 * lines or `vigil report` reads the file back.
 *   type=DISPLAY connector=HDMI-A-1 state=disconnected monitor="DELL P2419H" serial=...
 *     then state=connected: "disconnected 14:02-14:05", keyed by the connector (the last span; the
 *     count says how often, the value the seconds in all)
 *   type=DISPLAY_DPMS connector=HDMI-A-1 dpms=Off: "display power Off at 14:10"
 *   type=DISPLAY_MONITOR connector=HDMI-A-1 from="..." to="...": a different monitor
 *   type=DISPLAY_CEC power=standby: "TV in standby at 14:10 (HDMI-CEC)"
 *   type=NETWORK state=offline reason="no default route", then state=online:
 *     "offline 3 times, longest 12 min" (the value: the longest, in seconds)
 *   type=SD_WEAR state=worn device=mmcblk0 ...: a storage finding, key "wear" */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/event_findings.h"
#include "core/findings.h"

#define VAL_LEN 96

/* "14:02", local time of Unix time t; "?" when unknown. */
static void hhmm(double t, char *out, size_t cap)
{
        struct tm tm;
        time_t s = (time_t)t;
        if (!isfinite(t) || !localtime_r(&s, &tm) || !strftime(out, cap, "%H:%M", &tm))
                snprintf(out, cap, "?");
}

/* "12 min", "2.5 h", "40 s" */
static void span(double s, char *out, size_t cap)
{
        if (s < 60)
                snprintf(out, cap, "%.0f s", s);
        else if (s < 3600)
                snprintf(out, cap, "%.0f min", s / 60);
        else
                snprintf(out, cap, "%.1f h", s / 3600);
}

EVENT_FINDING(evf_display)
{
        (void)src;
        char conn[VAL_LEN], state[24], text[FINDING_TEXT_LEN], from[8], to[8];
        event_field(l, "connector", conn, sizeof(conn));
        event_field(l, "state", state, sizeof(state));
        if (!strcmp(state, "disconnected")) {
                struct finding *x = findings_note(f, FINDING_DISPLAY, "host", conn, 1, t, NULL);
                if (!x)
                        return;
                x->open_t = t;
                hhmm(t, from, sizeof(from));
                snprintf(text, sizeof(text), "disconnected since %s", from);
                snprintf(x->text, sizeof(x->text), "%s", text);
        } else if (!strcmp(state, "connected")) {
                struct finding *x =
                    (struct finding *)findings_find(f, FINDING_DISPLAY, "host", conn);
                if (!x || !isfinite(x->open_t))
                        return;
                if (isfinite(t) && t >= x->open_t)
                        x->value += t - x->open_t;
                hhmm(x->open_t, from, sizeof(from));
                hhmm(t, to, sizeof(to));
                snprintf(x->text, sizeof(x->text), "disconnected %s-%s", from, to);
                x->open_t = NAN;
                x->last_t = t;
        }
}

EVENT_FINDING(evf_display_dpms)
{
        (void)src;
        char conn[VAL_LEN], dpms[16], key[FINDING_KEY_LEN], at[8], text[FINDING_TEXT_LEN];
        event_field(l, "connector", conn, sizeof(conn));
        event_field(l, "dpms", dpms, sizeof(dpms));
        if (!strcmp(dpms, "On"))
                return;
        snprintf(key, sizeof(key), "%.40s dpms", conn);
        hhmm(t, at, sizeof(at));
        snprintf(text, sizeof(text), "display power %s at %s", dpms, at);
        findings_note(f, FINDING_DISPLAY, "host", key, 1, t, text);
}

EVENT_FINDING(evf_display_monitor)
{
        (void)src;
        char conn[VAL_LEN], from[VAL_LEN], to[VAL_LEN], key[FINDING_KEY_LEN];
        char text[FINDING_TEXT_LEN];
        event_field(l, "connector", conn, sizeof(conn));
        event_field(l, "from", from, sizeof(from));
        event_field(l, "to", to, sizeof(to));
        snprintf(key, sizeof(key), "%.40s monitor", conn);
        snprintf(text, sizeof(text), "a different monitor, %.80s \xE2\x86\x92 %.80s", from, to);
        findings_note(f, FINDING_DISPLAY, "host", key, 1, t, text);
}

EVENT_FINDING(evf_display_cec)
{
        (void)src;
        char power[24], at[8], text[FINDING_TEXT_LEN];
        event_field(l, "power", power, sizeof(power));
        if (strcmp(power, "standby") && strcmp(power, "to-standby"))
                return;
        hhmm(t, at, sizeof(at));
        snprintf(text, sizeof(text), "the TV went to standby at %s (HDMI-CEC)", at);
        findings_note(f, FINDING_DISPLAY, "host", "tv", 1, t, text);
}

EVENT_FINDING(evf_network)
{
        (void)src;
        char state[16], reason[VAL_LEN], since[8], longest[24];
        event_field(l, "state", state, sizeof(state));
        if (!strcmp(state, "offline")) {
                struct finding *x = findings_note(f, FINDING_NETWORK, "host", NULL, 1, t, NULL);
                if (!x)
                        return;
                x->open_t = t;
                event_field(l, "reason", reason, sizeof(reason));
                hhmm(t, since, sizeof(since));
                if (x->count == 1)
                        snprintf(x->text, sizeof(x->text), "offline since %s (%.60s)", since,
                                 reason);
                else
                        snprintf(x->text, sizeof(x->text),
                                 "offline %llu times, offline since %s (%.60s)",
                                 (unsigned long long)x->count, since, reason);
                return;
        }
        struct finding *x = (struct finding *)findings_find(f, FINDING_NETWORK, "host", NULL);
        if (!x || !isfinite(x->open_t) || strcmp(state, "online"))
                return;
        double d = isfinite(t) && t >= x->open_t ? t - x->open_t : 0;
        if (d > x->value)
                x->value = d;
        x->open_t = NAN;
        x->last_t = t;
        span(x->value, longest, sizeof(longest));
        if (x->count == 1)
                snprintf(x->text, sizeof(x->text), "offline once, for %s", longest);
        else
                snprintf(x->text, sizeof(x->text), "offline %llu times, longest %s",
                         (unsigned long long)x->count, longest);
}

EVENT_FINDING(evf_sd_wear)
{
        (void)src;
        char state[16], dev[32], lt[32], eol[16], days[24], text[FINDING_TEXT_LEN];
        event_field(l, "state", state, sizeof(state));
        if (strcmp(state, "worn"))
                return;
        event_field(l, "device", dev, sizeof(dev));
        struct strbuf sb;
        sb_init_fixed(&sb, text, sizeof(text));
        sb_printf(&sb, "%.30s wearing out", dev);
        if (event_field(l, "life_time", lt, sizeof(lt)) && lt[0])
                sb_printf(&sb, ": life time used %s", lt);
        if (event_field(l, "pre_eol", eol, sizeof(eol)) && eol[0])
                sb_printf(&sb, ", reserved blocks %s", eol);
        if (event_field(l, "endurance_days", days, sizeof(days)) && days[0])
                sb_printf(&sb, ", rated endurance written in %s days at this rate", days);
        findings_note(f, FINDING_STORAGE, "host", "wear", 1, t, text);
}
