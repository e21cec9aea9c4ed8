/* SPDX-License-Identifier: Apache-2.0 */
/* vigil's entry point: subcommands, then the daemon. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "daemon/control.h"
#include "core/options.h"
#include "core/vigil.h"
#include "daemon/daemon.h"
#include "daemon/health_cmd.h"
#include "daemon/lock.h"
#include "detect/xid_catalog.h"
#include "report/postmortem.h"
#include "report/report.h"
#include "util/parse.h"
#include "util/strbuf.h"

/* argv[*i] of a subcommand: --log-dir DIR or --config FILE taken into opt (1, *i past
 * its value), not one of them (0), or refused, said on stderr (-1). */
static int log_dir_option(struct vigil_options *opt, int argc, char **argv, int *i)
{
        char err[300];
        const char *a = argv[*i];
        if ((strcmp(a, "--log-dir") && strcmp(a, "--config")) || *i + 1 >= argc)
                return 0;
        const char *v = argv[++*i];
        int r = !strcmp(a, "--log-dir") ? options_set(opt, "log-dir", v, err, sizeof(err))
                                        : options_load_file(opt, v, err, sizeof(err));
        if (r < 0) {
                options_error("%s", err);
                return -1;
        }
        return 1;
}

/* `vigil status|snapshot [--log-dir DIR] [--config FILE] [REASON...]`: find the log
 * directory the same way the daemon does, the rest is the reason. */
static int control_main(const char *cmd, int argc, char **argv)
{
        struct vigil_options opt;
        char reason[128] = "";
        options_defaults(&opt);
        for (int i = 0; i < argc; i++) {
                const char *a = argv[i];
                int took = log_dir_option(&opt, argc, argv, &i);
                if (took < 0)
                        return 2;
                if (took)
                        continue;
                if (a[0] == '-' || !strcmp(cmd, "status")) {
                        options_error("%s: unexpected argument '%.200s'", cmd, a);
                        return 2;
                } else {
                        size_t n = strlen(reason);
                        snprintf(reason + n, sizeof(reason) - n, "%s%s", n ? " " : "", a);
                }
        }
        options_resolve(&opt);
        if (!strcmp(cmd, "status"))
                return control_cmd_status(opt.log_dir);
        return control_cmd_snapshot(opt.log_dir, reason[0] ? reason : "requested");
}

/* `vigil health [--log-dir DIR] [--config FILE] [--json] [--strict]` and
 * `vigil health clear COMPONENT REASON... [--log-dir DIR] [--config FILE]`. */
static int health_main(int argc, char **argv)
{
        struct vigil_options opt;
        char reason[160] = "";
        const char *component = NULL;
        bool json = false, strict = false, clear = argc > 0 && !strcmp(argv[0], "clear");
        options_defaults(&opt);
        for (int i = clear ? 1 : 0; i < argc; i++) {
                const char *a = argv[i];
                int took = log_dir_option(&opt, argc, argv, &i);
                if (took < 0)
                        return 2;
                if (took)
                        continue;
                if (!clear && !strcmp(a, "--json")) {
                        json = true;
                } else if (!clear && !strcmp(a, "--strict")) {
                        strict = true;
                } else if (clear && a[0] != '-' && !component) {
                        component = a;
                } else if (clear && a[0] != '-') {
                        size_t n = strlen(reason);
                        snprintf(reason + n, sizeof(reason) - n, "%s%s", n ? " " : "", a);
                } else {
                        options_error("health: unexpected argument '%.200s'", a);
                        return 2;
                }
        }
        options_resolve(&opt);
        if (clear && !component) {
                fprintf(stderr, "usage: vigil health clear COMPONENT REASON\n");
                return 2;
        }
        if (clear)
                return health_cmd_clear(opt.root, opt.log_dir, component, reason);
        return health_cmd_show(opt.root, opt.log_dir, json, strict);
}

/* `vigil postmortem [LOG-DIR]`: the latest post-mortem; the log directory defaults to
 * the daemon's. */
static int postmortem_main(int argc, char **argv)
{
        struct vigil_options opt;
        char err[300];
        options_defaults(&opt);
        if (argc > 1 || (argc == 1 && argv[0][0] == '-')) {
                fprintf(stderr, "usage: vigil postmortem [LOG-DIR]\n");
                return 2;
        }
        if (argc == 1 && options_set(&opt, "log-dir", argv[0], err, sizeof(err)) < 0) {
                options_error("%s", err);
                return 2;
        }
        options_resolve(&opt);
        /* Killed, or the machine went down, and not started since: no start has written
         * the post-mortem yet; what is known now, built the way the next start will. */
        pid_t pid;
        struct strbuf sb;
        if (lock_owner(opt.log_dir, &pid) == -ESRCH &&
            sb_init_heap(&sb, 65536, POSTMORTEM_MAX_BYTES) == 0) {
                int r = postmortem_pending(opt.log_dir, opt.root, false, &sb);
                if (r == 0)
                        fwrite(sb.buf, 1, sb.len, stdout);
                sb_free(&sb);
                if (r == 0)
                        return 0;
        }
        return postmortem_cmd(opt.log_dir);
}

/* `vigil xid CODE`: what the Xid means, what to do, NVIDIA's immediate action and the
 * severity vigil gives it. 0 when the catalog lists it, 1 when it does not, 2 when CODE
 * is not a number. */
static int xid_main(int argc, char **argv)
{
        uint64_t code;
        char buf[512];
        struct strbuf sb;
        if (argc != 1) {
                fprintf(stderr, "usage: vigil xid CODE\n");
                return 2;
        }
        if (parse_u64(argv[0], strlen(argv[0]), &code) < 0 || code > UINT_MAX) {
                fprintf(stderr, "vigil xid: '%.64s' is not an Xid number\n", argv[0]);
                return 2;
        }
        sb_init_fixed(&sb, buf, sizeof(buf));
        if (xid_describe(&sb, (unsigned)code) < 0) {
                fprintf(stderr,
                        "Xid %llu: " XID_NOT_IN_CATALOG " (it lists 1-%u); see NVIDIA's Xid "
                        "documentation\n",
                        (unsigned long long)code, XID_CATALOG_LAST);
                return 1;
        }
        sb_putc(&sb, '\n');
        xid_describe_bucket(&sb, (unsigned)code);
        printf("%s\n", sb.buf);
        return 0;
}

int main(int argc, char **argv)
{
        if (argc > 1 && !strcmp(argv[1], "report"))
                return report_main(argc - 1, argv + 1);
        if (argc > 1 && !strcmp(argv[1], "postmortem"))
                return postmortem_main(argc - 2, argv + 2);
        if (argc > 1 && !strcmp(argv[1], "health"))
                return health_main(argc - 2, argv + 2);
        if (argc > 1 && !strcmp(argv[1], "xid"))
                return xid_main(argc - 2, argv + 2);
        if (argc > 1 && (!strcmp(argv[1], "status") || !strcmp(argv[1], "snapshot")))
                return control_main(argv[1], argc - 2, argv + 2);

        struct vigil_options opt;
        options_defaults(&opt);
        int r = options_parse(&opt, argc, argv);
        if (r < 0)
                return 2;
        if (r > 0)
                return 0;
        options_resolve(&opt);
        return vigil_daemon_run(&opt);
}
