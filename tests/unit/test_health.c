/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests: the health verdict (core/health.c, core/health_rules.c, core/health_text.c)
 * and its daemon glue (detect/health_watch.c): every transition, the proofs, a fake
 * reboot over the state file, escalation, a person's clear, the outputs (a golden
 * /health JSON). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/counters.h"
#include "core/eventlog.h"
#include "core/health.h"
#include "detect/health_watch.h"
#include "detect/sxid_catalog.h"
#include "detect/xid_catalog.h"
#include "resident.h"
#include "test_fixtures.h"
#include "util/parse.h"
#include "util/pfile.h"

#define T0     1764770000.0 /* 2025-12-03T13:53:20Z */
#define BOOT_A "5c1f1a8e-7a43-4d8e-9f55-0e2b1d7f6a10"
#define BOOT_B "0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f6a"

static struct health *new_health(const char *boot)
{
        struct health *h = malloc(sizeof(*h));
        assert_non_null(h);
        health_init(h, boot, xid_event_action, NULL);
        return h;
}

static void feed(struct health *h, double t, const char *line)
{
        health_feed_event(h, t, line, strlen(line));
}

static const struct health_entry *entry(const struct health *h, const char *name)
{
        for (size_t i = 0; i < h->n; i++)
                if (!strcmp(h->e[i].name, name))
                        return &h->e[i];
        return NULL;
}

static enum health_state state_of(const struct health *h, const char *name)
{
        const struct health_entry *e = entry(h, name);
        return e ? e->state : HEALTH_HEALTHY;
}

static enum event_action action_of(const struct health *h, const char *name)
{
        const struct health_entry *e = entry(h, name);
        return e ? e->action : EA_NONE;
}

#define XID79                                                                                      \
        "type=NVML_EVENT gpu=0 event=Xid(79) mask=0x0008 data=79 xid=79 class=reboot "             \
        "meaning=\"GPU has fallen off the bus\" action=\"reboot the machine\" severity=critical "  \
        "nvidia_action=RESTART_BM"
#define XID48 "type=NVML_EVENT gpu=1 event=Xid(48) mask=0x0008 data=48 xid=48 class=reset"

/* A GPU that stops answering: unhealthy, reset the GPU, until it answers again and
 * then HEALTH_PROVE_S without a new error. NVML's "GPU is lost" (off the bus) asks for a
 * reboot, as Xid 79 does on the same GPU's PCIe part: a person reads one action. */
static void test_lost_gpu(void **state)
{
        (void)state;
        struct health *h = new_health(BOOT_A);
        feed(h, T0, "type=NVML_FAILED gpu=3 error=\"GPU is lost\"");
        assert_int_equal(state_of(h, "gpu3.driver"), HEALTH_UNHEALTHY);
        assert_int_equal(action_of(h, "gpu3.driver"), EA_REBOOT);
        assert_string_equal(entry(h, "gpu3.driver")->reason,
                            "GPU 3: stopped answering (GPU is lost)");
        feed(h, T0, XID79); /* gpu0's loss through its Xid: the same action */
        assert_int_equal(action_of(h, "gpu0.pcie"), action_of(h, "gpu3.driver"));
        /* Another error: a reset, and it proves itself once it answers again. */
        health_init(h, BOOT_A, xid_event_action, NULL);
        feed(h, T0, "type=NVML_FAILED gpu=3 error=\"Unknown Error\"");
        assert_int_equal(state_of(h, "gpu3.driver"), HEALTH_UNHEALTHY);
        assert_int_equal(action_of(h, "gpu3.driver"), EA_RESET_GPU);
        health_tick(h, T0 + 10 * HEALTH_PROVE_S);
        assert_int_equal(state_of(h, "gpu3.driver"), HEALTH_UNHEALTHY); /* still lost */
        feed(h, T0 + 100, "type=GPU_RECOVERED gpu=3 failures=5");
        health_tick(h, T0 + 100 + HEALTH_PROVE_S - 1);
        assert_int_equal(state_of(h, "gpu3.driver"), HEALTH_UNHEALTHY);
        health_tick(h, T0 + 100 + HEALTH_PROVE_S);
        assert_int_equal(state_of(h, "gpu3.driver"), HEALTH_HEALTHY);
        free(h);
}

/* The daemon's view of a GPU answering does the same as GPU_RECOVERED. */
static void test_gpu_answers(void **state)
{
        (void)state;
        struct health *h = new_health(BOOT_A);
        feed(h, T0, "type=NVML_FAILED gpu=1 error=\"Unknown Error\"");
        health_gpu_answers(h, 0, T0 + 5); /* another GPU: nothing */
        health_tick(h, T0 + 5 + HEALTH_PROVE_S);
        assert_int_equal(state_of(h, "gpu1.driver"), HEALTH_UNHEALTHY);
        health_gpu_answers(h, 1, T0 + 10);
        health_tick(h, T0 + 10 + HEALTH_PROVE_S);
        assert_int_equal(state_of(h, "gpu1.driver"), HEALTH_HEALTHY);
        free(h);
}

/* A new error during the proof starts it over. */
static void test_proof_restarts(void **state)
{
        (void)state;
        struct health *h = new_health(BOOT_A);
        feed(h, T0, XID48);
        assert_int_equal(state_of(h, "gpu1.memory"), HEALTH_UNHEALTHY);
        assert_int_equal(action_of(h, "gpu1.memory"), EA_RESET_GPU);
        feed(h, T0 + HEALTH_PROVE_S - 10, XID48);
        health_tick(h, T0 + HEALTH_PROVE_S + 10);
        assert_int_equal(state_of(h, "gpu1.memory"), HEALTH_UNHEALTHY);
        health_tick(h, T0 + 2 * HEALTH_PROVE_S - 10);
        assert_int_equal(state_of(h, "gpu1.memory"), HEALTH_HEALTHY);
        free(h);
}

/* The Xid's state follows its catalog action: application errors degrade, an
 * informational one (Xid 43: the application's own fault, class info?) changes nothing
 * unless the catalog asks for an action. */
static void test_xid_by_action(void **state)
{
        (void)state;
        struct health *h = new_health(BOOT_A);
        for (unsigned code = 1; code <= XID_CATALOG_LAST; code++) {
                char line[160];
                health_init(h, BOOT_A, xid_event_action, NULL);
                snprintf(line, sizeof(line), "type=NVML_EVENT gpu=2 event=Xid(%u) xid=%u", code,
                         code);
                feed(h, T0, line);
                enum event_action a = xid_event_action(code);
                enum health_state want = a == EA_NONE               ? HEALTH_HEALTHY
                                         : a == EA_RESTART_WORKLOAD ? HEALTH_DEGRADED
                                                                    : HEALTH_UNHEALTHY;
                assert_int_equal(health_overall(h), want);
                if (want != HEALTH_HEALTHY)
                        assert_int_equal(h->e[0].action, a);
        }
        /* The part: memory, PCIe, NVLink, else the driver. */
        health_init(h, BOOT_A, xid_event_action, NULL);
        feed(h, T0, "type=NVML_EVENT gpu=2 event=Xid(79) xid=79");
        feed(h, T0, "type=NVML_EVENT gpu=2 event=Xid(74) xid=74");
        feed(h, T0, "type=KERNEL_GPU kind=xid gpu=2 xid=119");
        assert_non_null(entry(h, "gpu2.pcie"));
        assert_non_null(entry(h, "gpu2.nvlink"));
        assert_non_null(entry(h, "gpu2.driver"));
        feed(h, T0, "type=KERNEL_GPU kind=xid gpu=5 xid=79");
        assert_int_equal(state_of(h, "gpu5.pcie"), HEALTH_UNHEALTHY);
        /* The driver's recovery action, when the line is not an Xid's. */
        feed(h, T0,
             "type=NVML_EVENT gpu=6 event=GpuRecoveryAction data=2 recovery_action=NODE_REBOOT");
        assert_int_equal(action_of(h, "gpu6.driver"), EA_REBOOT);
        feed(h, T0, "type=KERNEL_GPU kind=recovery_action gpu=7 recovery_action=GPU_RESET");
        assert_int_equal(action_of(h, "gpu7.driver"), EA_RESET_GPU);
        feed(h, T0, "type=NVML_EVENT gpu=8 event=GpuRecoveryAction recovery_action=NONE");
        assert_null(entry(h, "gpu8.driver"));
        /* No resolver: an Xid asks to inspect the hardware. */
        health_init(h, BOOT_A, NULL, NULL);
        feed(h, T0, "type=NVML_EVENT gpu=2 event=Xid(13) xid=13");
        assert_int_equal(action_of(h, "gpu2.driver"), EA_INSPECT_HARDWARE);
        free(h);
}

static enum event_action sxid_action(unsigned code)
{
        const struct sxid_info *x = sxid_lookup(code);
        return x ? sxid_class_event_action(x->cls) : EA_INSPECT_HARDWARE;
}

/* An NVSwitch SXid: the fabric, its state by the Fabric Manager guide's class. */
static void test_sxid_by_action(void **state)
{
        (void)state;
        struct health *h = new_health(BOOT_A);
        size_t n;
        const struct sxid_info *t = sxid_table(&n);
        for (size_t i = 0; i < n; i++) {
                char line[160];
                health_init(h, BOOT_A, xid_event_action, sxid_action);
                snprintf(line, sizeof(line), "type=KERNEL_GPU kind=sxid gpu=4 sxid=%u", t[i].code);
                feed(h, T0, line);
                enum event_action a = sxid_class_event_action(t[i].cls);
                enum health_state want = a == EA_NONE               ? HEALTH_HEALTHY
                                         : a == EA_RESTART_WORKLOAD ? HEALTH_DEGRADED
                                                                    : HEALTH_UNHEALTHY;
                assert_int_equal(state_of(h, "gpu4.fabric"), want);
                assert_int_equal(action_of(h, "gpu4.fabric"), want ? a : EA_NONE);
        }
        health_init(h, BOOT_A, xid_event_action, sxid_action);
        feed(h, T0, "type=KERNEL_GPU kind=sxid pci=0000:c6:00.0 sxid=99999");
        assert_int_equal(state_of(h, "gpu.fabric"), HEALTH_UNHEALTHY);
        assert_int_equal(action_of(h, "gpu.fabric"), EA_INSPECT_HARDWARE);
        free(h);
}

/* States that clear with a line: while the condition lasts, whatever the time. */
static void test_line_cleared(void **state)
{
        (void)state;
        static const struct {
                const char *set, *clear, *component;
                enum health_state state;
        } cases[] = {
            {"type=STORAGE state=read-only fs=root mount=/ device=/dev/sda1 fstype=ext4",
             "type=STORAGE state=read-write fs=root mount=/ device=/dev/sda1 fstype=ext4",
             "host.storage", HEALTH_UNHEALTHY},
            {"type=RPI_THROTTLE condition=\"under-voltage\" state=set throttled=0x50005",
             "type=RPI_THROTTLE condition=\"under-voltage\" state=cleared throttled=0x50000",
             "pi.power", HEALTH_DEGRADED},
            {"type=RPI_THROTTLE condition=\"currently throttled\" state=set",
             "type=RPI_THROTTLE condition=\"currently throttled\" state=cleared", "pi.thermal",
             HEALTH_DEGRADED},
            {"type=RPI_TEMP level=hot temp=85.2C", "type=RPI_TEMP level=normal temp=60.0C",
             "pi.thermal", HEALTH_UNHEALTHY},
            {"type=TEMP_OVER_MAX gpu=0 state=above temp=95C max=90C",
             "type=TEMP_OVER_MAX gpu=0 state=back temp=85C max=90C", "gpu0.thermal",
             HEALTH_DEGRADED},
            {"type=GPU_COUNT state=missing answering=1 expected=2 from=state",
             "type=GPU_COUNT state=back answering=2 expected=2 from=state", "gpu.pcie",
             HEALTH_UNHEALTHY},
            {"type=SHM state=full used=95.0% limit=90.0%", "type=SHM state=ok used=10.0%",
             "host.memory", HEALTH_DEGRADED},
            {"type=DISK_LOW free_mb=40 action=pause", "type=DISK_RESUMED free_mb=900 paused_s=1",
             "host.storage", HEALTH_DEGRADED},
            {"type=WATCH watch=\"player\" state=\"gone\" old_pid=812 comm=\"chromium\"",
             "type=WATCH watch=\"player\" state=\"back\" pid=990 down_s=14 restarts=1", "pi.player",
             HEALTH_UNHEALTHY},
            {"type=WATCH watch=\"player\" state=\"missing\"",
             "type=WATCH watch=\"player\" state=\"back\" pid=990 down_s=3 restarts=1", "pi.player",
             HEALTH_UNHEALTHY},
            {"type=UNIT watch=\"player\" unit=\"player.service\" active=\"failed\" "
             "result=\"start-limit-hit\"",
             "type=WATCH watch=\"player\" state=\"back\" pid=990 down_s=90 restarts=5", "pi.player",
             HEALTH_UNHEALTHY},
            {"type=NVLINK gpu=2 link=5 state=down", "type=NVLINK gpu=2 link=5 state=up",
             "gpu2.nvlink", HEALTH_UNHEALTHY},
            {"type=FABRIC gpu=1 state=incomplete fabric=in_progress",
             "type=FABRIC gpu=1 state=completed fabric=completed", "gpu1.fabric", HEALTH_UNHEALTHY},
            {"type=FABRIC gpu=1 state=failed fabric=completed status=999",
             "type=FABRIC gpu=1 state=completed fabric=completed", "gpu1.fabric", HEALTH_UNHEALTHY},
            {"type=FABRIC gpu=0 state=degraded health=degraded_bw",
             "type=FABRIC gpu=0 state=healthy", "gpu0.fabric", HEALTH_DEGRADED},
        };
        struct health *h = new_health(BOOT_A);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                health_init(h, BOOT_A, xid_event_action, NULL);
                feed(h, T0, cases[i].set);
                assert_int_equal(state_of(h, cases[i].component), cases[i].state);
                health_tick(h, T0 + 100 * HEALTH_PROVE_S);
                assert_int_equal(state_of(h, cases[i].component), cases[i].state);
                feed(h, T0 + 1, cases[i].clear);
                assert_int_equal(state_of(h, cases[i].component), HEALTH_HEALTHY);
        }
        /* A clearing line does not clear a state that must prove itself. */
        health_init(h, BOOT_A, xid_event_action, NULL);
        feed(h, T0, "type=STORAGE_ERRORS new=3 total=3 last=\"mmc0: error -110\"");
        assert_int_equal(state_of(h, "host.storage"), HEALTH_DEGRADED);
        feed(h, T0 + 1, "type=STORAGE state=read-write fs=root mount=/");
        assert_int_equal(state_of(h, "host.storage"), HEALTH_DEGRADED);
        /* A restart, an OOM kill or a fault of the player: degraded until proven; an OOM
         * kill of another process is the host's memory. */
        static const struct {
                const char *line, *component;
        } proven[] = {
            {"type=WATCH watch=\"player\" state=\"restarted\" pid=991 old_pid=990", "pi.player"},
            {"type=OOM_KILL pid=812 comm=\"chromium\" watch=\"player\" scope=\"machine\"",
             "pi.player"},
            {"type=PROCESS_FAULT pid=812 comm=\"chromium\" watch=\"player\" what=\"segfault\"",
             "pi.player"},
            {"type=OOM_KILL pid=9 comm=\"sleep\" scope=\"machine\"", "host.memory"},
        };
        for (size_t i = 0; i < sizeof(proven) / sizeof(proven[0]); i++) {
                health_init(h, BOOT_A, xid_event_action, NULL);
                feed(h, T0, proven[i].line);
                assert_int_equal(state_of(h, proven[i].component), HEALTH_DEGRADED);
                feed(h, T0 + 1, "type=WATCH watch=\"player\" state=\"back\" pid=990");
                assert_int_equal(state_of(h, proven[i].component), HEALTH_DEGRADED);
                health_tick(h, T0 + 2 * HEALTH_PROVE_S);
                assert_int_equal(state_of(h, proven[i].component), HEALTH_HEALTHY);
        }
        /* A fault of a process no watch has is no component's. */
        health_init(h, BOOT_A, xid_event_action, NULL);
        feed(h, T0, "type=PROCESS_FAULT pid=3 comm=\"Xorg\" what=\"segfault\"");
        assert_int_equal(h->n, 0);
        /* NVLink errors rising: degraded, the GPU reset as the action, before any Xid; a
         * link back up does not clear it; the proof's time without a rise does. */
        health_init(h, BOOT_A, xid_event_action, NULL);
        feed(h, T0,
             "type=NVLINK gpu=3 link=3 state=errors counter=recovery_events delta=2 total=14");
        assert_int_equal(state_of(h, "gpu3.nvlink"), HEALTH_DEGRADED);
        assert_int_equal(action_of(h, "gpu3.nvlink"), EA_RESET_GPU);
        feed(h, T0 + 1, "type=NVLINK gpu=3 link=3 state=up");
        assert_int_equal(state_of(h, "gpu3.nvlink"), HEALTH_DEGRADED);
        health_tick(h, T0 + 2 * HEALTH_PROVE_S);
        assert_int_equal(state_of(h, "gpu3.nvlink"), HEALTH_HEALTHY);
        /* Lines of no rule change nothing. */
        health_init(h, BOOT_A, xid_event_action, NULL);
        feed(h, T0, "type=START version=0.1.0 pid=1");
        feed(h, T0, "type=KERNEL_GPU kind=aer_corrected pci=0000:01:00.0");
        feed(h, T0, "no type here");
        assert_int_equal(h->n, 0);
        free(h);
}

/* At a start, a condition kept from an earlier run is measured again: it clears unless
 * a line sets it again within HEALTH_RECHECK_S; the states that prove themselves stay. */
static void test_recheck(void **state)
{
        (void)state;
        struct health *h = new_health(BOOT_A);
        feed(h, T0, "type=STORAGE state=read-only fs=root mount=/");
        feed(h, T0, "type=GPU_COUNT state=missing answering=1 expected=2 from=state");
        feed(h, T0, XID79);
        health_recheck(h, T0 + 100);
        feed(h, T0 + 101, "type=GPU_COUNT state=missing answering=1 expected=2 from=state");
        health_tick(h, T0 + 100 + HEALTH_RECHECK_S - 1);
        assert_int_equal(state_of(h, "host.storage"), HEALTH_UNHEALTHY);
        health_tick(h, T0 + 100 + HEALTH_RECHECK_S);
        assert_int_equal(state_of(h, "host.storage"), HEALTH_HEALTHY); /* not seen again */
        assert_int_equal(state_of(h, "gpu.pcie"), HEALTH_UNHEALTHY);   /* seen again */
        assert_int_equal(state_of(h, "gpu0.pcie"), HEALTH_UNHEALTHY);  /* must prove itself */
        free(h);
}

/* The evidence: a line's own file, a crash snapshot written after the error. */
static void test_evidence(void **state)
{
        (void)state;
        struct health *h = new_health(BOOT_A);
        feed(h, T0, XID79);
        feed(h, T0 + 2, "type=CRASH_SNAPSHOT gpu=0 number=1 file=crashes/crash-1.log reason=x");
        assert_string_equal(entry(h, "gpu0.pcie")->evidence, "crashes/crash-1.log");
        feed(h, T0 + 3, "type=INCIDENT reason=\"under-voltage now\" snapshot=/x/inc-0.txt");
        assert_null(entry(h, "pi.player")); /* a Pi's incident: not the player's */
        feed(h, T0 + 3,
             "type=INCIDENT reason=\"player gone\" snapshot=/var/log/vigil/inc-1.txt "
             "watch=player");
        assert_string_equal(entry(h, "pi.player")->evidence, "/var/log/vigil/inc-1.txt");
        feed(h, T0 + 4, "type=POSTMORTEM end=reboot quiet=x file=postmortem/pm-1.log");
        assert_string_equal(entry(h, "host.kernel")->evidence, "postmortem/pm-1.log");
        free(h);
}

/* A reboot-class failure waits for a later boot before its proof starts. */
static void test_reboot_waits_for_boot(void **state)
{
        (void)state;
        struct health *h = new_health(BOOT_A);
        feed(h, T0, XID79);
        assert_int_equal(state_of(h, "gpu0.pcie"), HEALTH_UNHEALTHY);
        assert_int_equal(action_of(h, "gpu0.pcie"), EA_REBOOT);
        health_tick(h, T0 + 100 * HEALTH_PROVE_S);
        assert_int_equal(state_of(h, "gpu0.pcie"), HEALTH_UNHEALTHY);
        /* The same boot id again (vigil restarted, no reboot): still waiting. */
        copy_bounded(h->boot_id, sizeof(h->boot_id), BOOT_A, strlen(BOOT_A));
        health_tick(h, T0 + 200 * HEALTH_PROVE_S);
        assert_int_equal(state_of(h, "gpu0.pcie"), HEALTH_UNHEALTHY);
        free(h);
}

static char tmpdir[64];

static void make_root(const char *boot)
{
        char path[256];
        snprintf(path, sizeof(path), "%s/root/proc/sys/kernel/random", tmpdir);
        char cmd[400];
        snprintf(cmd, sizeof(cmd), "mkdir -p %s", path);
        assert_int_equal(system(cmd), 0);
        strncat(path, "/boot_id", sizeof(path) - strlen(path) - 1);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "%s\n", boot);
        fclose(f);
}

static int setup_dir(void **state)
{
        (void)state;
        snprintf(tmpdir, sizeof(tmpdir), "/tmp/vigil-health-XXXXXX");
        return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
        (void)state;
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
        return system(cmd) == 0 ? 0 : -1;
}

/* Persistence over a fake reboot: the state file written on boot A, read back on
 * boot B (the boot id under the fixture root changed), keeps the GPU unhealthy until
 * it has proved itself on the new boot. */
static void test_fake_reboot(void **state)
{
        (void)state;
        char root[128];
        snprintf(root, sizeof(root), "%s/root", tmpdir);
        make_root(BOOT_A);
        struct health *h = new_health("");
        assert_int_equal(health_watch_load(h, root, tmpdir), -ENOENT);
        assert_string_equal(h->boot_id, BOOT_A);
        feed(h, T0, XID79);
        feed(h, T0 + 1, "type=NVML_FAILED gpu=0 error=\"GPU is lost\"");
        assert_int_equal(health_save(tmpdir, h), 0);

        make_root(BOOT_B); /* the reboot */
        struct health *after = new_health("");
        assert_int_equal(health_watch_load(after, root, tmpdir), 0);
        assert_string_equal(after->boot_id, BOOT_B);
        assert_int_equal(state_of(after, "gpu0.pcie"), HEALTH_UNHEALTHY);
        assert_int_equal(state_of(after, "gpu0.driver"), HEALTH_UNHEALTHY);
        assert_string_equal(entry(after, "gpu0.pcie")->reason, entry(h, "gpu0.pcie")->reason);
        double boot_t = T0 + 3600;
        health_tick(after, boot_t); /* the first tick of the new boot starts the proof */
        assert_int_equal(state_of(after, "gpu0.pcie"), HEALTH_UNHEALTHY);
        health_tick(after, boot_t + HEALTH_PROVE_S - 1);
        assert_int_equal(state_of(after, "gpu0.pcie"), HEALTH_UNHEALTHY);
        health_tick(after, boot_t + HEALTH_PROVE_S);
        assert_int_equal(state_of(after, "gpu0.pcie"), HEALTH_HEALTHY);
        assert_int_equal(state_of(after, "gpu0.driver"), HEALTH_HEALTHY);

        /* A file that is not a health state file: an error, h untouched. */
        char path[256];
        snprintf(path, sizeof(path), "%s/%s", tmpdir, HEALTH_FILE);
        FILE *f = fopen(path, "w");
        fputs("boot_id=x\n", f);
        fclose(f);
        size_t n = after->n;
        assert_int_equal(health_load(tmpdir, after), -EINVAL);
        assert_int_equal(after->n, n);
        free(h);
        free(after);
}

/* The state file's text round-trips; a damaged line is dropped, not the file. */
static void test_state_file(void **state)
{
        (void)state;
        struct health *h = new_health(BOOT_A), *back = new_health(BOOT_B);
        h->ngpus = 3;
        h->pi = true;
        feed(h, T0, XID79);
        feed(h, T0 + 1, "type=STORAGE state=read-only mount=/ fs=root");
        feed(h, T0 + 2, "type=CRASH_SNAPSHOT gpu=0 number=1 file=crashes/a\tb.log");
        struct strbuf sb;
        assert_int_equal(sb_init_heap(&sb, 1024, HEALTH_FILE_MAX), 0);
        health_format(h, &sb);
        assert_int_equal(health_parse(back, sb.buf, sb.len), 0);
        assert_int_equal(back->n, h->n);
        for (size_t i = 0; i < h->n; i++) {
                const struct health_entry *a = &h->e[i], *b = &back->e[i];
                assert_string_equal(a->name, b->name);
                assert_int_equal(a->state, b->state);
                assert_int_equal(a->action, b->action);
                assert_int_equal(a->until, b->until);
                assert_int_equal(a->await_boot, b->await_boot);
                assert_string_equal(a->reason, b->reason);
                assert_string_equal(a->boot_id, b->boot_id);
                assert_true(fabs(a->since - b->since) < 0.01);
        }
        assert_string_equal(back->boot_id, BOOT_B); /* this boot's, not the file's */
        assert_int_equal(back->ngpus, 3);
        assert_true(back->pi);
        sb_puts(&sb, "entry\tgpu0.bogus\t2\t3\t1\t000\tnan\tnan\tnan\t-\tnan\t0\t0\t0\t-\tx\n");
        sb_puts(&sb, "entry\tshort\n");
        assert_int_equal(health_parse(back, sb.buf, sb.len), 0);
        assert_int_equal(back->n, h->n);
        assert_int_equal(back->dropped, 2);
        sb_free(&sb);
        free(h);
        free(back);
}

/* A reset- or reboot-class failure back after its remedy within a day escalates to
 * "inspect the hardware", which only a person clears. */
static void test_escalation(void **state)
{
        (void)state;
        struct health *h = new_health(BOOT_A);
        /* Reset class: proved healthy, back within the window. */
        feed(h, T0, XID48);
        health_tick(h, T0 + HEALTH_PROVE_S);
        assert_int_equal(state_of(h, "gpu1.memory"), HEALTH_HEALTHY);
        feed(h, T0 + HEALTH_PROVE_S + 3600, XID48);
        assert_int_equal(state_of(h, "gpu1.memory"), HEALTH_UNHEALTHY);
        assert_int_equal(action_of(h, "gpu1.memory"), EA_INSPECT_HARDWARE);
        assert_int_equal(entry(h, "gpu1.memory")->recurrences, 1);
        assert_non_null(strstr(entry(h, "gpu1.memory")->reason, "back within 24 h"));
        health_tick(h, T0 + 1000 * HEALTH_PROVE_S);
        assert_int_equal(state_of(h, "gpu1.memory"), HEALTH_UNHEALTHY);
        feed(h, T0 + 1000 * HEALTH_PROVE_S,
             "type=HEALTH_CLEARED component=gpu1 reason=\"swapped\"");
        assert_int_equal(state_of(h, "gpu1.memory"), HEALTH_HEALTHY);
        /* After a person's clear of an escalated part, the count starts over. */
        feed(h, T0 + 1000 * HEALTH_PROVE_S + 60, XID48);
        assert_int_equal(action_of(h, "gpu1.memory"), EA_RESET_GPU);

        /* Outside the window: no escalation. */
        health_init(h, BOOT_A, xid_event_action, NULL);
        feed(h, T0, XID48);
        health_tick(h, T0 + HEALTH_PROVE_S);
        feed(h, T0 + HEALTH_PROVE_S + HEALTH_ESCALATE_S + 1, XID48);
        assert_int_equal(action_of(h, "gpu1.memory"), EA_RESET_GPU);

        /* Reboot class: the reboot came (a later boot), the proof runs, it is back. */
        health_init(h, BOOT_A, xid_event_action, NULL);
        feed(h, T0, XID79);
        copy_bounded(h->boot_id, sizeof(h->boot_id), BOOT_B, strlen(BOOT_B));
        health_tick(h, T0 + 3600);
        feed(h, T0 + 3700, XID79);
        assert_int_equal(action_of(h, "gpu0.pcie"), EA_INSPECT_HARDWARE);
        assert_non_null(strstr(entry(h, "gpu0.pcie")->reason, "back within 24 h"));
        assert_true(entry(h, "gpu0.pcie")->since == T0 + 3700);
        /* Without the reboot in between, a repeat is the same failure. */
        health_init(h, BOOT_A, xid_event_action, NULL);
        feed(h, T0, XID79);
        feed(h, T0 + 60, XID79);
        assert_int_equal(action_of(h, "gpu0.pcie"), EA_REBOOT);
        /* A lost GPU that answered again and is lost again within its proof. */
        health_init(h, BOOT_A, xid_event_action, NULL);
        feed(h, T0, "type=NVML_FAILED gpu=2 error=lost");
        feed(h, T0 + 10, "type=GPU_RECOVERED gpu=2 failures=3");
        feed(h, T0 + 20, "type=NVML_FAILED gpu=2 error=lost");
        assert_int_equal(action_of(h, "gpu2.driver"), EA_INSPECT_HARDWARE);
        free(h);
}

/* A person's clear: a GPU and its parts, one part, everything; names checked. */
static void test_clear(void **state)
{
        (void)state;
        struct health *h = new_health(BOOT_A);
        feed(h, T0, XID79);
        feed(h, T0, "type=NVML_FAILED gpu=0 error=lost");
        feed(h, T0, "type=NVML_FAILED gpu=10 error=lost");
        feed(h, T0, "type=STORAGE state=read-only mount=/");
        assert_int_equal(health_clear(h, "gpu0.pcie", T0 + 1), 1);
        assert_int_equal(state_of(h, "gpu0.driver"), HEALTH_UNHEALTHY);
        assert_int_equal(health_clear(h, "gpu1", T0 + 1), 0);
        feed(h, T0 + 2, "type=HEALTH_CLEARED component=gpu0 reason=\"reseated riser\"");
        assert_int_equal(state_of(h, "gpu0.driver"), HEALTH_HEALTHY);
        assert_int_equal(state_of(h, "gpu10.driver"), HEALTH_UNHEALTHY); /* gpu0 is not gpu10 */
        assert_int_equal(health_clear(h, "all", T0 + 3), 2);
        assert_int_equal(health_overall(h), HEALTH_HEALTHY);
        static const char *const good[] = {"all",      "gpu3",         "gpu3.memory",
                                           "gpu.pcie", "gpu12.driver", "host.storage",
                                           "pi.power", "pi.display"};
        static const char *const bad[] = {"",     "gpu",   "gpu3.bogus",
                                          "host", "gpux",  "gpu3.memoryx",
                                          "disk", "gpu3.", "a very long name that does not fit"};
        for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
                assert_true(health_name_ok(good[i]));
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                assert_false(health_name_ok(bad[i]));
        free(h);
}

/* Every change is announced once, as a HEALTH line through the events log. */
static void test_announce(void **state)
{
        (void)state;
        struct health *h = new_health(BOOT_A);
        struct eventlog *el;
        assert_int_equal(eventlog_open_none(&el), 0);
        eventlog_set_tap(el, health_watch_tap, h);
        feed(h, T0, XID79);
        enum health_state from;
        const struct health_entry *e = health_next_change(h, &from);
        assert_non_null(e);
        assert_string_equal(e->name, "gpu0.pcie");
        assert_int_equal(from, HEALTH_HEALTHY);
        assert_null(health_next_change(h, &from));
        /* The clear goes through the log: its line clears, then the change is announced. */
        assert_int_equal(health_watch_clear(h, el, "gpu0", "reseated \"riser\"\n", T0 + 5), 1);
        assert_int_equal(state_of(h, "gpu0.pcie"), HEALTH_HEALTHY);
        assert_null(health_next_change(h, &from));
        eventlog_close(el);
        free(h);
}

static void count_row(void *arg, const struct health_row *r)
{
        (void)r;
        (*(unsigned *)arg)++;
}

static struct health *golden_model(void)
{
        struct health *h = new_health(BOOT_A);
        h->ngpus = 2;
        h->pi = false;
        feed(h, T0, XID79);
        feed(h, T0 + 2, "type=CRASH_SNAPSHOT gpu=0 number=1 file=crashes/crash-1.log reason=x");
        feed(h, T0 + 5, "type=TEMP_OVER_MAX gpu=1 state=above temp=95C max=90C");
        feed(h, T0 + 9, "type=STORAGE state=read-only fs=root mount=/ device=/dev/sda1");
        return h;
}

/* The JSON of /health and `vigil health --json`, byte for byte (tests/golden/health.json;
 * VIGIL_GOLDEN_UPDATE=1 rewrites it). */
static void test_golden_json(void **state)
{
        (void)state;
        struct health *h = golden_model();
        struct strbuf sb;
        assert_int_equal(sb_init_heap(&sb, 4096, HEALTH_FILE_MAX), 0);
        health_json(h, &sb);
        char path[PATH_MAX];
        test_repo_path(path, sizeof(path), "tests/golden/health.json");
        if (getenv("VIGIL_GOLDEN_UPDATE")) {
                FILE *f = fopen(path, "w");
                assert_non_null(f);
                fwrite(sb.buf, 1, sb.len, f);
                fclose(f);
        }
        static char want[HEALTH_FILE_MAX];
        int n = read_file_at(NULL, path, want, sizeof(want));
        assert_true(n > 0);
        assert_int_equal((size_t)n, sb.len);
        assert_memory_equal(want, sb.buf, sb.len);
        /* The one line of the plugin convention: the gravest part first. */
        sb_reset(&sb);
        health_line(h, &sb);
        assert_string_equal(sb.buf,
                            "unhealthy: host.storage: replace the part: storage: / is read-only "
                            "(+2 more)");
        sb_reset(&sb);
        health_table(h, &sb);
        assert_non_null(strstr(sb.buf, "gpu0           unhealthy reboot the machine"));
        assert_non_null(strstr(sb.buf, "[evidence: crashes/crash-1.log]"));
        assert_null(strstr(sb.buf, "gpu0.memory")); /* healthy parts: in the JSON only */
        /* One row per listed component (a series each on /metrics): per GPU its verdict
         * and 7 parts, the host's 3; a Pi's 6 more. */
        unsigned rows = 0;
        health_walk(h, count_row, &rows);
        assert_int_equal(rows, 2 * 8 + 3);
        h->pi = true;
        rows = 0;
        health_walk(h, count_row, &rows);
        assert_int_equal(rows, 2 * 8 + 3 + 6);
        health_init(h, BOOT_A, NULL, NULL);
        sb_reset(&sb);
        health_line(h, &sb);
        assert_string_equal(sb.buf, "healthy");
        sb_free(&sb);
        free(h);
}

/* The lines every screen shows: one per part not healthy, the unhealthy ones first and
 * among them the gravest action first (host.storage's "replace the part" before gpu0's
 * "reboot the machine" though the walk lists GPUs first), the action before the reason;
 * one healthy line when none. */
static void test_say(void **state)
{
        (void)state;
        struct health *h = golden_model();
        struct strbuf sb;
        assert_int_equal(sb_init_heap(&sb, 4096, HEALTH_FILE_MAX), 0);
        size_t n = health_say_text(h, NAN, "  ", &sb);
        assert_int_equal(n, 3);
        assert_memory_equal(sb.buf, "  Health: unhealthy\n    unhealthy ", 33);
        const char *un = strstr(sb.buf, "    unhealthy host.storage: replace the part; since ");
        assert_non_null(un);
        assert_non_null(strstr(un, "; storage: / is read-only\n"));
        const char *first = strstr(sb.buf, "    unhealthy gpu0.");
        const char *deg = strstr(sb.buf, "    degraded ");
        assert_non_null(first);
        assert_non_null(deg);
        /* The gravest action first: replace the part before reboot the machine. */
        assert_true(un < first && first < deg);
        assert_non_null(strstr(first, "unhealthy gpu0.pcie: reboot the machine; since "));
        /* now's day: the time of day only. */
        sb_reset(&sb);
        health_say_text(h, T0 + 60, "", &sb);
        char want[64];
        time_t t = (time_t)(T0 + 9);
        struct tm tm;
        assert_non_null(localtime_r(&t, &tm));
        strftime(want, sizeof(want), "host.storage: replace the part; since %H:%M:%S; ", &tm);
        assert_non_null(strstr(sb.buf, want));
        assert_null(strstr(sb.buf, "  unhealthy gpu0:")); /* the GPU's row repeats a part */
        for (const char *p = sb.buf; (p = strchr(p, '\n')); p++)
                assert_true(p[1] == '\0' || !strncmp(p + 1, "  ", 2));
        health_init(h, BOOT_A, NULL, NULL);
        sb_reset(&sb);
        assert_int_equal(health_say_text(h, NAN, "", &sb), 0);
        assert_string_equal(sb.buf, "Health: healthy: every component\n");
        sb_free(&sb);
        free(h);
}

/* health_init writes the head alone and health_copy copies the head, the workloads
 * and the entries in use: in fresh pages, the slots of entries a machine never needs are
 * never touched (the daemon keeps two verdicts and copies one for each /health), and a
 * copy says what the original says. */
static void test_copy_touches_what_is_used(void **state)
{
        (void)state;
        const size_t pg = (size_t)sysconf(_SC_PAGESIZE),
                     total = (sizeof(struct health) + pg - 1) / pg;
        struct health *h = fresh_pages(sizeof(*h)), *c = fresh_pages(sizeof(*c));
        assert_non_null(h);
        assert_non_null(c);
        health_init(h, BOOT_A, xid_event_action, NULL);
        assert_int_equal(resident_pages(h, sizeof(*h)), 1);
        feed(h, T0, XID79);
        feed(h, T0, XID48);
        feed(h, T0,
             "type=GPU_PROCESSES gpu=0 graphics=0 pids=4000:python3 "
             "workloads=4000=slurm:4100.0");
        assert_true(h->n >= 2);
        assert_int_equal(h->nwork, 1);
        health_copy(c, h);
        size_t used = offsetof(struct health, e) + h->n * sizeof(h->e[0]);
        long want = (long)((used + pg - 1) / pg);
        assert_true(total > 20);
        assert_true(resident_pages(c, sizeof(*c)) <= want);
        char a[8192], b[8192];
        struct strbuf sa, sb;
        sb_init_fixed(&sa, a, sizeof(a));
        sb_init_fixed(&sb, b, sizeof(b));
        health_json(h, &sa);
        health_json(c, &sb);
        assert_true(sa.len > 100);
        assert_string_equal(a, b);
        assert_memory_equal(c->work, h->work, sizeof(h->work[0]));
        assert_memory_equal(c->e, h->e, h->n * sizeof(h->e[0]));
        munmap(h, sizeof(*h));
        munmap(c, sizeof(*c));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_lost_gpu),
            cmocka_unit_test(test_gpu_answers),
            cmocka_unit_test(test_proof_restarts),
            cmocka_unit_test(test_xid_by_action),
            cmocka_unit_test(test_sxid_by_action),
            cmocka_unit_test(test_line_cleared),
            cmocka_unit_test(test_evidence),
            cmocka_unit_test(test_recheck),
            cmocka_unit_test(test_reboot_waits_for_boot),
            cmocka_unit_test_setup_teardown(test_fake_reboot, setup_dir, teardown_dir),
            cmocka_unit_test(test_state_file),
            cmocka_unit_test(test_escalation),
            cmocka_unit_test(test_clear),
            cmocka_unit_test(test_announce),
            cmocka_unit_test(test_golden_json),
            cmocka_unit_test(test_say),
            cmocka_unit_test(test_copy_touches_what_is_used),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
