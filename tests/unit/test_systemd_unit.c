/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: a systemd unit's state (collect/systemd_unit.c): `systemctl show`'s
 * answer parsed, and the poller's thread against the stand-in tests/fixtures/bin/
 * systemctl (it prints $VIGIL_FAKE_SYSTEMD/UNIT), a missing systemctl said. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/systemd_unit.h"

/* systemctl 252's answer for a player that crashed on SIGSEGV and was restarted */
static const char crashed[] = "NRestarts=4\nExecMainCode=2\nExecMainStatus=11\nResult=signal\n"
                              "LoadState=loaded\nActiveState=activating\nSubState=auto-restart\n";

static void test_parse(void **state)
{
        (void)state;
        struct unit_state u;
        char text[64];
        assert_int_equal(unit_show_parse(crashed, strlen(crashed), &u), 0);
        assert_true(u.known);
        assert_true(u.loaded);
        assert_int_equal(u.nrestarts, 4);
        assert_string_equal(u.result, "signal");
        assert_string_equal(u.active, "activating");
        assert_string_equal(u.sub, "auto-restart");
        unit_main_describe(&u, text, sizeof(text));
        assert_string_equal(text, "killed by signal 11");
        /* systemd before 235: no NRestarts; an exit; a unit never run */
        const char *old = "ExecMainCode=1\nExecMainStatus=3\nResult=exit-code\nLoadState=loaded\n"
                          "ActiveState=failed\nSubState=failed";
        assert_int_equal(unit_show_parse(old, strlen(old), &u), 0);
        assert_int_equal(u.nrestarts, -1);
        unit_main_describe(&u, text, sizeof(text));
        assert_string_equal(text, "exited 3");
        const char *none = "LoadState=not-found\nActiveState=inactive\nExecMainCode=0\n";
        assert_int_equal(unit_show_parse(none, strlen(none), &u), 0);
        assert_false(u.loaded);
        unit_main_describe(&u, text, sizeof(text));
        assert_string_equal(text, "");
        /* not systemctl show's answer: untouched */
        struct unit_state keep = {.nrestarts = 77};
        const char *bad[] = {"", "Failed to connect to bus", "NRestarts=1\n", "ActiveState=\n"};
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                assert_int_equal(unit_show_parse(bad[i], strlen(bad[i]), &keep), -EINVAL);
                assert_int_equal(keep.nrestarts, 77);
        }
        /* bad numbers are left unknown */
        const char *odd = "NRestarts=-3\nExecMainCode=99\nActiveState=active\n";
        assert_int_equal(unit_show_parse(odd, strlen(odd), &u), 0);
        assert_int_equal(u.nrestarts, -1);
        assert_int_equal(u.main_code, 0);
}

static void put_state(const char *dir, const char *unit, const char *text)
{
        char path[512];
        snprintf(path, sizeof(path), "%s/%s", dir, unit);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

/* Wait (at most 10 s) for unit i's reads to pass after. */
static uint64_t wait_reads(struct unit_poller *p, unsigned i, uint64_t after, struct unit_state *u)
{
        uint64_t reads = 0;
        for (int k = 0; k < 1000; k++) {
                assert_true(unit_poller_get(p, i, u, &reads));
                if (reads > after)
                        return reads;
                usleep(10000);
        }
        fail_msg("no reading of unit %u", i);
        return reads;
}

static void with_fake_path(char *old, size_t cap)
{
        char path[PATH_MAX + 4200], cwd[PATH_MAX];
        const char *p = getenv("PATH");
        snprintf(old, cap, "%s", p ? p : "");
        assert_non_null(getcwd(cwd, sizeof(cwd)));
        snprintf(path, sizeof(path), "%s/%s/bin:%s", cwd,
                 getenv("FIXTURES") ? getenv("FIXTURES") : "tests/fixtures", old);
        setenv("PATH", path, 1);
}

static void test_poller(void **state)
{
        (void)state;
        char dir[] = "/tmp/vigil-units.XXXXXX", old[4096], err[160];
        struct unit_poller *p;
        struct unit_state u;
        assert_non_null(mkdtemp(dir));
        with_fake_path(old, sizeof(old));
        setenv("VIGIL_FAKE_SYSTEMD", dir, 1);
        put_state(dir, "player.service",
                  "NRestarts=0\nExecMainCode=0\nExecMainStatus=0\nResult=success\n"
                  "LoadState=loaded\nActiveState=active\nSubState=running\n");
        const char *units[] = {"player.service", "gone.service"};
        assert_int_equal(unit_poller_start(&p, units, 2, 50 * 1000 * 1000), 0);
        uint64_t r = wait_reads(p, 0, 0, &u);
        assert_string_equal(u.active, "active");
        assert_int_equal(u.nrestarts, 0);
        wait_reads(p, 1, 0, &u);
        assert_false(u.loaded); /* not installed: a state all the same */
        put_state(dir, "player.service", crashed);
        unit_poller_poke(p);
        for (int k = 0; k < 50 && u.nrestarts != 4; k++)
                r = wait_reads(p, 0, r, &u);
        assert_int_equal(u.nrestarts, 4);
        assert_string_equal(u.result, "signal");
        unit_poller_error(p, err, sizeof(err));
        assert_string_equal(err, "");
        assert_false(unit_poller_get(p, 2, &u, &r));
        unit_poller_stop(p);
        setenv("PATH", old, 1);
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        assert_int_equal(system(cmd), 0);
}

/* No systemctl on PATH: said, no state, nothing else breaks. */
static void test_no_systemctl(void **state)
{
        (void)state;
        char old[4096], err[160] = "";
        const char *p0 = getenv("PATH");
        snprintf(old, sizeof(old), "%s", p0 ? p0 : "");
        setenv("PATH", "/nonexistent", 1);
        struct unit_poller *p;
        struct unit_state u;
        uint64_t reads = 1;
        const char *units[] = {"player.service"};
        assert_int_equal(unit_poller_start(&p, units, 1, 50 * 1000 * 1000), 0);
        for (int k = 0; k < 1000 && !err[0]; k++) {
                usleep(10000);
                unit_poller_error(p, err, sizeof(err));
        }
        assert_string_equal(err, "systemctl not found");
        assert_true(unit_poller_get(p, 0, &u, &reads));
        assert_int_equal(reads, 0);
        assert_false(u.known);
        unit_poller_stop(p);
        setenv("PATH", old, 1);
        assert_int_equal(unit_poller_start(&p, units, 0, 0), -EINVAL);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_parse),
            cmocka_unit_test(test_poller),
            cmocka_unit_test(test_no_systemctl),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
