/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the signage player's rules (detect/signage_rules.c) on frames, and the
 * findings their lines make (core/findings_signage.c): a screen unplugged and back
 * ("disconnected 14:02-14:05"), another monitor, DPMS, the TV's CEC status, the network
 * offline and back ("offline 2 times, longest 12 min"), the card's wear; and the health
 * verdict's states for them (core/health_rules.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/findings.h"
#include "core/health.h"
#include "core/frame.h"
#include "detect/signage_rules.h"

#define MAX_LINES 16

static char lines[MAX_LINES][512];
static unsigned nlines;

static void collect(void *arg, int64_t real_ns, const char *line)
{
        (void)arg;
        (void)real_ns;
        assert_true(nlines < MAX_LINES);
        snprintf(lines[nlines++], sizeof(lines[0]), "%s", line);
}

static unsigned step(struct signage_rules *st, const struct frame *f)
{
        nlines = 0;
        return signage_rules_step(st, f, 0, collect, NULL);
}

static struct frame *screen_frame(void)
{
        static struct frame f;
        frame_clear(&f);
        f.display.nconn = 2;
        struct display_conn *c = &f.display.conn[0];
        snprintf(c->card, sizeof(c->card), "card1");
        snprintf(c->name, sizeof(c->name), "HDMI-A-1");
        c->connected = 1;
        c->enabled = 1;
        c->dpms = 0;
        snprintf(c->monitor, sizeof(c->monitor), "DELL U3818DW");
        snprintf(c->serial, sizeof(c->serial), "5KC03043090L");
        c = &f.display.conn[1];
        snprintf(c->card, sizeof(c->card), "card1");
        snprintf(c->name, sizeof(c->name), "HDMI-A-2");
        c->connected = 0;
        return &f;
}

static void test_screen(void **state)
{
        (void)state;
        struct signage_rules *st = signage_rules_new();
        struct frame *f = screen_frame();
        struct display_conn *c = &f->display.conn[0];
        /* At start: nothing, not even of the unused HDMI-A-2. */
        assert_int_equal(step(st, f), 0);
        /* A status that could not be read keeps the state. */
        c->connected = NAN;
        assert_int_equal(step(st, f), 0);
        c->connected = 0;
        c->monitor[0] = c->serial[0] = '\0';
        assert_int_equal(step(st, f), 1);
        assert_string_equal(lines[0], "type=DISPLAY connector=HDMI-A-1 state=disconnected");
        assert_int_equal(step(st, f), 0);
        c->connected = 1;
        snprintf(c->monitor, sizeof(c->monitor), "C49RG9x");
        snprintf(c->serial, sizeof(c->serial), "HNKNC00549");
        assert_int_equal(step(st, f), 2);
        assert_string_equal(lines[0], "type=DISPLAY connector=HDMI-A-1 state=connected "
                                      "monitor=\"C49RG9x\" serial=\"HNKNC00549\"");
        assert_string_equal(lines[1],
                            "type=DISPLAY_MONITOR connector=HDMI-A-1 "
                            "from=\"DELL U3818DW 5KC03043090L\" to=\"C49RG9x HNKNC00549\"");
        c->dpms = 3;
        assert_int_equal(step(st, f), 1);
        assert_string_equal(lines[0], "type=DISPLAY_DPMS connector=HDMI-A-1 dpms=Off");
        /* Swapped faster than a sample (no disconnect seen): the EDID tells. */
        snprintf(c->monitor, sizeof(c->monitor), "DELL U3818DW");
        snprintf(c->serial, sizeof(c->serial), "5KC03043090L");
        assert_int_equal(step(st, f), 1);
        assert_string_equal(lines[0],
                            "type=DISPLAY_MONITOR connector=HDMI-A-1 "
                            "from=\"C49RG9x HNKNC00549\" to=\"DELL U3818DW 5KC03043090L\"");
        /* An EDID that could not be read is no different monitor. */
        c->monitor[0] = c->serial[0] = '\0';
        assert_int_equal(step(st, f), 0);
        signage_rules_free(st);
}

static void test_cec(void **state)
{
        (void)state;
        struct signage_rules *st = signage_rules_new();
        struct frame *f = screen_frame();
        f->display.cec_power = 0;
        assert_int_equal(step(st, f), 0); /* on at start: nothing to say */
        f->display.cec_power = NAN;       /* no answer this time */
        assert_int_equal(step(st, f), 0);
        f->display.cec_power = 1;
        assert_int_equal(step(st, f), 1);
        assert_string_equal(lines[0], "type=DISPLAY_CEC power=standby");
        signage_rules_free(st);
        /* In standby at start: said. */
        st = signage_rules_new();
        assert_int_equal(step(st, f), 1);
        signage_rules_free(st);
}

static void test_network(void **state)
{
        (void)state;
        struct signage_rules *st = signage_rules_new();
        static struct frame f;
        frame_clear(&f);
        f.net.nif = 2;
        snprintf(f.net.ifs[0].name, sizeof(f.net.ifs[0].name), "eth0");
        snprintf(f.net.ifs[1].name, sizeof(f.net.ifs[1].name), "wlan0");
        f.net.ifs[0].up = 0;
        f.net.ifs[1].up = 1;
        f.net.ifs[1].carrier = 1;
        f.net.ifs[1].carrier_changes = 2;
        f.net.default_route = 1;
        assert_int_equal(step(st, &f), 0); /* online at start */
        f.net.default_route = 0;
        assert_int_equal(step(st, &f), 1);
        assert_string_equal(lines[0], "type=NETWORK state=offline reason=\"no default route\"");
        f.net.default_route = 1;
        assert_int_equal(step(st, &f), 1);
        assert_string_equal(lines[0], "type=NETWORK state=online");
        f.net.ifs[1].carrier = 0;
        f.net.ifs[1].carrier_changes = 3;
        assert_int_equal(step(st, &f), 2);
        assert_string_equal(lines[0],
                            "type=NETWORK_LINK interface=wlan0 state=down carrier_changes=3");
        assert_string_equal(lines[1],
                            "type=NETWORK state=offline reason=\"no interface has a link\"");
        signage_rules_free(st);
        /* Offline at start: said. */
        st = signage_rules_new();
        assert_int_equal(step(st, &f), 1);
        signage_rules_free(st);
}

static void test_sd_wear(void **state)
{
        (void)state;
        struct signage_rules *st = signage_rules_new();
        static struct frame f;
        frame_clear(&f);
        snprintf(f.storage.sd.device, sizeof(f.storage.sd.device), "mmcblk0");
        f.storage.sd.life_time_a = 1;
        f.storage.sd.life_time_b = 2;
        f.storage.sd.pre_eol = 1;
        assert_int_equal(step(st, &f), 0);
        f.storage.sd.life_time_b = 10;
        assert_int_equal(step(st, &f), 1);
        assert_string_equal(
            lines[0], "type=SD_WEAR state=worn device=mmcblk0 life_time=90-100% pre_eol=normal");
        f.storage.sd.life_time_b = 2;
        f.storage.sd.pre_eol = 3;
        assert_int_equal(step(st, &f), 0); /* still worn */
        f.storage.sd.pre_eol = 1;
        f.storage.sd.endurance_s = 400 * 86400.0;
        assert_int_equal(step(st, &f), 1);
        assert_string_equal(lines[0], "type=SD_WEAR state=ok device=mmcblk0 life_time=10-20% "
                                      "pre_eol=normal endurance_days=400");
        signage_rules_free(st);
}

/* The sentence of the finding (kind, "host", key). */
static const char *line_of(const struct findings *fs, enum finding_kind k, const char *key)
{
        const struct finding *x = findings_find(fs, k, "host", key);
        assert_non_null(x);
        return x->text;
}

static void feed(struct findings *fs, double t, const char *line)
{
        findings_feed_event(fs, t, line, strlen(line));
}

static void test_findings(void **state)
{
        (void)state;
        static struct findings fs;
        findings_init(&fs);
        const double t0 = 1796652120; /* 2026-12-08 14:02:00 UTC */
        feed(&fs, t0, "type=DISPLAY connector=HDMI-A-1 state=disconnected");
        assert_string_equal(line_of(&fs, FINDING_DISPLAY, "HDMI-A-1"), "disconnected since 14:02");
        feed(&fs, t0 + 180, "type=DISPLAY connector=HDMI-A-1 state=connected monitor=\"X\"");
        assert_string_equal(line_of(&fs, FINDING_DISPLAY, "HDMI-A-1"), "disconnected 14:02-14:05");
        const struct finding *x = findings_find(&fs, FINDING_DISPLAY, "host", "HDMI-A-1");
        assert_true(x->value == 180 && x->count == 1 && x->alarm);
        /* A connect with no disconnect before it adds nothing. */
        feed(&fs, t0, "type=DISPLAY connector=HDMI-A-2 state=connected");
        assert_null(findings_find(&fs, FINDING_DISPLAY, "host", "HDMI-A-2"));
        feed(&fs, t0 + 600, "type=DISPLAY_CEC power=standby");
        assert_string_equal(line_of(&fs, FINDING_DISPLAY, "tv"),
                            "the TV went to standby at 14:12 (HDMI-CEC)");
        feed(&fs, t0 + 600, "type=DISPLAY_CEC power=on");
        x = findings_find(&fs, FINDING_DISPLAY, "host", "tv");
        assert_int_equal(x->count, 1);

        feed(&fs, t0, "type=NETWORK state=offline reason=\"no default route\"");
        assert_string_equal(line_of(&fs, FINDING_NETWORK, NULL),
                            "offline since 14:02 (no default route)");
        feed(&fs, t0 + 720, "type=NETWORK state=online");
        feed(&fs, t0 + 1000, "type=NETWORK state=offline reason=\"no interface has a link\"");
        feed(&fs, t0 + 1060, "type=NETWORK state=online");
        assert_string_equal(line_of(&fs, FINDING_NETWORK, NULL), "offline 2 times, longest 12 min");

        feed(&fs, t0, "type=SD_WEAR state=worn device=mmcblk0 pre_eol=warning endurance_days=90");
        assert_string_equal(line_of(&fs, FINDING_STORAGE, "wear"),
                            "mmcblk0 wearing out, reserved blocks warning, rated endurance "
                            "written in 90 days at this rate");
}

static enum health_state health_of(const struct health *h, const char *name,
                                   enum event_action *ret_action)
{
        for (size_t i = 0; i < h->n; i++)
                if (!strcmp(h->e[i].name, name)) {
                        *ret_action = h->e[i].action;
                        return h->e[i].state;
                }
        *ret_action = EA_NONE;
        return HEALTH_HEALTHY;
}

static void health_line_fed(struct health *h, double t, const char *line)
{
        health_feed_event(h, t, line, strlen(line));
}

static void test_health(void **state)
{
        (void)state;
        static struct health h;
        enum event_action a;
        const double t0 = 1796652120;
        health_init(&h, "5c1f1a8e-7a43-4d8e-9f55-0e2b1d7f6a10", NULL, NULL);
        health_line_fed(&h, t0, "type=DISPLAY connector=HDMI-A-1 state=disconnected");
        assert_int_equal(health_of(&h, "pi.display", &a), HEALTH_UNHEALTHY);
        assert_int_equal(a, EA_INSPECT_HARDWARE);
        health_line_fed(&h, t0 + 60, "type=DISPLAY connector=HDMI-A-1 state=connected");
        assert_int_equal(health_of(&h, "pi.display", &a), HEALTH_HEALTHY);
        health_line_fed(&h, t0 + 70, "type=DISPLAY_DPMS connector=HDMI-A-1 dpms=Off");
        assert_int_equal(health_of(&h, "pi.display", &a), HEALTH_DEGRADED);
        health_line_fed(&h, t0 + 80, "type=DISPLAY_DPMS connector=HDMI-A-1 dpms=On");
        assert_int_equal(health_of(&h, "pi.display", &a), HEALTH_HEALTHY);
        health_line_fed(&h, t0 + 90, "type=DISPLAY_CEC power=standby");
        assert_int_equal(health_of(&h, "pi.display", &a), HEALTH_DEGRADED);
        health_line_fed(&h, t0 + 95, "type=DISPLAY_CEC power=on");
        assert_int_equal(health_of(&h, "pi.display", &a), HEALTH_HEALTHY);
        health_line_fed(&h, t0 + 100, "type=NETWORK state=offline reason=\"no default route\"");
        assert_int_equal(health_of(&h, "pi.network", &a), HEALTH_UNHEALTHY);
        health_line_fed(&h, t0 + 200, "type=NETWORK state=online");
        assert_int_equal(health_of(&h, "pi.network", &a), HEALTH_HEALTHY);
        health_line_fed(&h, t0 + 300, "type=SD_WEAR state=worn device=mmcblk0 pre_eol=warning");
        assert_int_equal(health_of(&h, "pi.storage", &a), HEALTH_DEGRADED);
        assert_int_equal(a, EA_REPLACE_PART);
}

int main(void)
{
        setenv("TZ", "UTC", 1);
        tzset();
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_screen),   cmocka_unit_test(test_cec),
            cmocka_unit_test(test_network),  cmocka_unit_test(test_sd_wear),
            cmocka_unit_test(test_findings), cmocka_unit_test(test_health),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
