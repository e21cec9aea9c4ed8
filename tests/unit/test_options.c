/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: options from the command line and the INI file (core/options.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/options.h"
#include "test_fixtures.h"
#include "util/clock.h"

static int parse(struct vigil_options *o, int argc, const char **argv)
{
        options_defaults(o);
        return options_parse(o, argc, (char **)argv);
}

static void test_defaults(void **state)
{
        (void)state;
        struct vigil_options o;
        const char *argv[] = {"vigil"};
        assert_int_equal(parse(&o, 1, argv), 0);
        assert_int_equal(o.interval_ns, NSEC_PER_SEC);
        assert_int_equal(o.gpu_interval_ns, 100 * NSEC_PER_MSEC);
        assert_int_equal(o.pss_interval_ns, 10 * NSEC_PER_SEC);
        assert_int_equal(o.sync_interval_ns, NSEC_PER_SEC);
        assert_int_equal(o.gpu_slow_interval_ns, 10 * NSEC_PER_SEC);
        assert_int_equal(o.gpu_mid_interval_ns, NSEC_PER_SEC);
        assert_string_equal(o.csv_path, "");
        assert_int_equal(o.retention_days, 14);
        assert_true(o.spike_threshold_pct == 15);
        assert_string_equal(o.gpu_list, "all");
        assert_int_equal(o.live, -1);
}

static void test_values(void **state)
{
        (void)state;
        struct vigil_options o;
        const char *argv[] = {"vigil",
                              "--interval",
                              "0.5",
                              "--gpu-interval=10ms",
                              "--count",
                              "3",
                              "--watch",
                              "player=run_linux.py",
                              "--watch",
                              "chromium=chromium",
                              "--gpu",
                              "0,2",
                              "--listen",
                              ":9101",
                              "--spike-threshold",
                              "20",
                              "--no-log",
                              "-q"};
        assert_int_equal(parse(&o, 18, argv), 0);
        assert_int_equal(o.interval_ns, 500 * NSEC_PER_MSEC);
        assert_int_equal(o.gpu_interval_ns, 10 * NSEC_PER_MSEC);
        assert_int_equal(o.count, 3);
        assert_int_equal(o.nwatches, 2);
        assert_string_equal(o.watches[1].name, "chromium");
        assert_string_equal(o.watches[0].pattern, "run_linux.py");
        assert_string_equal(o.gpu_list, "0,2");
        assert_string_equal(o.listen, ":9101");
        assert_true(o.spike_threshold_pct == 20);
        assert_true(o.no_log);
        assert_true(o.quiet);
}

static void test_bad_values(void **state)
{
        (void)state;
        struct vigil_options o;
        const char *bad[][3] = {
            {"vigil", "--interval", "0"},        {"vigil", "--interval", "abc"},
            {"vigil", "--interval", "5ms"},      {"vigil", "--count", "-1"},
            {"vigil", "--watch", "noequals"},    {"vigil", "--watch", "bad name=x"},
            {"vigil", "--gpu", "0,,1"},          {"vigil", "--listen", "9101"},
            {"vigil", "--listen", ":70000"},     {"vigil", "--profile", "kiosk"},
            {"vigil", "--spike-threshold", "0"}, {"vigil", "--nope", "1"},
            {"vigil", "stray", "arg"},           {"vigil", "--watch", "p=unit:"},
            {"vigil", "--watch", "p=unit:-x"},   {"vigil", "--watch", "p=unit:a b"},
            {"vigil", "--watch", "p=unit:a/b"},
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                assert_int_equal(parse(&o, 3, bad[i]), -22);
        const char *missing[] = {"vigil", "--interval"};
        assert_int_equal(parse(&o, 2, missing), -22);
        const char *unit[] = {"vigil", "--watch", "player=unit:player@tty1.service"};
        assert_int_equal(parse(&o, 3, unit), 0);
        assert_string_equal(watch_spec_unit(&o.watches[0]), "player@tty1.service");
        const char *plain[] = {"vigil", "--watch", "player=unit"};
        assert_int_equal(parse(&o, 3, plain), 0);
        assert_null(watch_spec_unit(&o.watches[0]));
}

static void test_profile(void **state)
{
        (void)state;
        struct vigil_options o;
        const char *argv[] = {"vigil", "--profile", "signage"};
        assert_int_equal(parse(&o, 3, argv), 0);
        assert_int_equal(o.interval_ns, 5 * NSEC_PER_SEC);
        assert_int_equal(o.sync_interval_ns, 60 * NSEC_PER_SEC);
        assert_int_equal(o.nwatches, 2);
        assert_string_equal(o.watches[0].name, "player");
        assert_string_equal(o.watches[0].pattern, "run_linux.py");
        assert_string_equal(o.watches[1].pattern, "chromium");
        const char *later[] = {"vigil", "--profile", "signage",         "--sync-interval",
                               "5m",    "--csv",     "logs/monitor.csv"};
        assert_int_equal(parse(&o, 7, later), 0);
        assert_int_equal(o.sync_interval_ns, 300 * NSEC_PER_SEC);
        assert_string_equal(o.csv_path, "logs/monitor.csv");
        const char *bad[] = {"vigil", "--sync-interval", "2h"};
        assert_int_equal(parse(&o, 3, bad), -22);
}

static char *write_tmp(const char *text)
{
        static char path[64];
        snprintf(path, sizeof(path), "/tmp/vigil-opt-XXXXXX");
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
        close(fd);
        return path;
}

static void test_config_file(void **state)
{
        (void)state;
        struct vigil_options o;
        char *path = write_tmp("# comment\ninterval = 2\n[vigil]\nquiet = yes\n"
                               "retention-days = 7\n[watch]\nplayer = run_linux.py\n");
        const char *argv[] = {"vigil", "--config", path, "--interval", "3"};
        assert_int_equal(parse(&o, 5, argv), 0);
        /* The command line wins over the file. */
        assert_int_equal(o.interval_ns, 3 * NSEC_PER_SEC);
        assert_true(o.quiet);
        assert_int_equal(o.retention_days, 7);
        assert_int_equal(o.nwatches, 1);
        unlink(path);
}

/* A profile sets defaults: every option given explicitly wins over it, before or
 * after --profile, on the command line or in the config file. */
static void test_profile_explicit_wins(void **state)
{
        (void)state;
        struct vigil_options o;
        const char *before[] = {"vigil", "--sync-interval", "5", "--profile", "signage"};
        assert_int_equal(parse(&o, 5, before), 0);
        assert_int_equal(o.sync_interval_ns, 5 * NSEC_PER_SEC);
        assert_int_equal(o.interval_ns, 5 * NSEC_PER_SEC);
        assert_int_equal(o.nwatches, 2);
        const char *mixed[] = {"vigil",   "--interval",      "2", "--profile",
                               "signage", "--sync-interval", "30"};
        assert_int_equal(parse(&o, 7, mixed), 0);
        assert_int_equal(o.interval_ns, 2 * NSEC_PER_SEC);
        assert_int_equal(o.sync_interval_ns, 30 * NSEC_PER_SEC);
        /* Watches given replace the profile's, wherever --profile is. */
        const char *watch[] = {"vigil", "--watch", "kiosk=kiosk.py", "--profile", "signage"};
        assert_int_equal(parse(&o, 5, watch), 0);
        assert_int_equal(o.nwatches, 1);
        assert_string_equal(o.watches[0].name, "kiosk");
        assert_int_equal(o.interval_ns, 5 * NSEC_PER_SEC);

        /* In the file: the profile, then a value that wins over it in either order. */
        char *path = write_tmp("interval = 2\nprofile = signage\n");
        const char *file_only[] = {"vigil", "--config", path};
        assert_int_equal(parse(&o, 3, file_only), 0);
        assert_int_equal(o.interval_ns, 2 * NSEC_PER_SEC);
        assert_int_equal(o.sync_interval_ns, 60 * NSEC_PER_SEC);
        assert_int_equal(o.nwatches, 2);
        /* The command line wins over the file, the profile's defaults included. */
        const char *cli_wins[] = {"vigil", "--config", path, "--interval", "3"};
        assert_int_equal(parse(&o, 5, cli_wins), 0);
        assert_int_equal(o.interval_ns, 3 * NSEC_PER_SEC);
        assert_int_equal(o.sync_interval_ns, 60 * NSEC_PER_SEC);
        /* options_load_file() alone applies the file's profile the same way. */
        char err[300];
        options_defaults(&o);
        assert_int_equal(options_load_file(&o, path, err, sizeof(err)), 0);
        assert_int_equal(o.interval_ns, 2 * NSEC_PER_SEC);
        assert_int_equal(o.sync_interval_ns, 60 * NSEC_PER_SEC);
        unlink(path);

        /* A profile on the command line wins over the file (the command line does);
         * its watches join the file's, never replacing one of the same name. */
        path = write_tmp("sync-interval = 10\n[watch]\nplayer = player.py\n");
        const char *cli_profile[] = {"vigil", "--config", path, "--profile", "signage"};
        assert_int_equal(parse(&o, 5, cli_profile), 0);
        assert_int_equal(o.sync_interval_ns, 60 * NSEC_PER_SEC);
        assert_int_equal(o.interval_ns, 5 * NSEC_PER_SEC);
        assert_int_equal(o.nwatches, 2);
        assert_string_equal(o.watches[0].pattern, "player.py");
        assert_string_equal(o.watches[1].name, "chromium");
        const char *cli_both[] = {"vigil", "--profile",       "signage", "--config",
                                  path,    "--sync-interval", "20"};
        assert_int_equal(parse(&o, 7, cli_both), 0);
        assert_int_equal(o.sync_interval_ns, 20 * NSEC_PER_SEC);
        unlink(path);
}

static void test_config_errors(void **state)
{
        (void)state;
        struct vigil_options o;
        char err[300];
        const char *texts[] = {"interval = 2\nbogus = 1\n", "[nosuch]\na = b\n",
                               "interval = fast\n", "this is not ini\n", "[watch]\nbad name = x\n"};
        const char *want[] = {"line 2: unknown key 'bogus'", "unknown section", "line 1: invalid",
                              "line 1", "line 2:"};
        for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
                char *path = write_tmp(texts[i]);
                options_defaults(&o);
                assert_true(options_load_file(&o, path, err, sizeof(err)) < 0);
                assert_non_null(strstr(err, want[i]));
                unlink(path);
        }
        options_defaults(&o);
        assert_true(options_load_file(&o, "/nonexistent/vigil.conf", err, sizeof(err)) < 0);
        assert_non_null(strstr(err, "No such file"));
}

/* The packaged dist/vigil.conf with its "# profile = signage" line uncommented, as a
 * user enables it: the profile must change the interval and the sync interval, so the
 * file must not set them itself. */
static void test_packaged_conf_profile(void **state)
{
        (void)state;
        char dir[PATH_MAX + 32], conf[PATH_MAX + 64], text[8192];
        test_csv_fixtures(dir, sizeof(dir));
        assert_true(dir[0] != '\0');
        /* dir is ROOT/tests/fixtures/csv: the repository root is three levels up. */
        snprintf(conf, sizeof(conf), "%s/../../../dist/vigil.conf", dir);
        FILE *f = fopen(conf, "re");
        assert_non_null(f);
        size_t n = fread(text, 1, sizeof(text) - 1, f);
        fclose(f);
        assert_true(n > 0 && n < sizeof(text) - 1);
        text[n] = '\0';
        char *line = strstr(text, "\n# profile = signage\n");
        assert_non_null(line);
        memmove(line + 1, line + 3, strlen(line + 3) + 1); /* drop "# " */

        struct vigil_options o;
        char *path = write_tmp(text);
        const char *argv[] = {"vigil", "--config", path};
        assert_int_equal(parse(&o, 3, argv), 0);
        assert_string_equal(o.profile, "signage");
        assert_int_equal(o.interval_ns, 5 * NSEC_PER_SEC);
        assert_int_equal(o.sync_interval_ns, 60 * NSEC_PER_SEC);
        assert_int_equal(o.nwatches, 2);
        /* As shipped (the profile commented) the defaults hold. */
        unlink(path);
        memmove(line + 3, line + 1, strlen(line + 1) + 1);
        memcpy(line + 1, "# ", 2);
        path = write_tmp(text);
        assert_int_equal(parse(&o, 3, argv), 0);
        assert_int_equal(o.interval_ns, NSEC_PER_SEC);
        assert_int_equal(o.sync_interval_ns, NSEC_PER_SEC);
        unlink(path);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_defaults),
            cmocka_unit_test(test_values),
            cmocka_unit_test(test_bad_values),
            cmocka_unit_test(test_profile),
            cmocka_unit_test(test_config_file),
            cmocka_unit_test(test_config_errors),
            cmocka_unit_test(test_profile_explicit_wins),
            cmocka_unit_test(test_packaged_conf_profile),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
