/* SPDX-License-Identifier: Apache-2.0 */
/* The run state and the post-mortem, as a sink with no rows to write: at start it reads
 * LOG-DIR/vigil.state (core/runstate.h), tells how the previous run ended and, after
 * an unclean end, writes the post-mortem (report/postmortem.h), an events.log line
 *   type=POSTMORTEM end=reboot quiet=2026-12-03T03:01:02.300 file=postmortem/postmortem-...
 * and a warning; then it records this run's start. At a clean stop it records the stop
 * marker. It runs first among the sinks: before any row of this run is written, and
 * before the HTTP server starts (which reads ctx->postmortem). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/gpu_count.h"
#include "core/runstate.h"
#include "detect/gpu_missing.h"
#include "core/vigil.h"
#include "report/pm_cause.h"
#include "report/pm_csv.h"
#include "report/postmortem.h"
#include "local/csvlog.h"
#include "core/eventlog.h"
#include "metrics/metrics.h"
#include "util/clock.h"
#include "util/fmt.h"
#include "util/log.h"
#include "util/hot.h"

struct pm_sink {
        struct runstate now; /* this run's state, saved at start and at the stop */
        char log_dir[1024];
};

/* After an unclean end, once the post-mortem has read them: the newest day of every
 * log ends with a whole row again. The day vigil logs to is repaired when it is opened;
 * an earlier day (the end came before midnight, the start after) never is, and would
 * keep its partial row for good. */
static void repair_logs(const char *dir)
{
        unsigned max = PM_MAX_FILES;
        struct pm_csv_file *files = calloc(max, sizeof(*files));
        int n = files ? pm_csv_find(dir, files, max) : -ENOMEM;
        for (int i = 0; i < n; i++) {
                if (!files[i].torn)
                        continue;
                char path[1200];
                snprintf(path, sizeof(path), "%s/%s", dir, files[i].name);
                int r = csvlog_repair(path);
                if (r > 0)
                        vlog(LOG_INFO, "%s: cut a partial last row (%d bytes) left by the end",
                             path, r);
                else if (r < 0)
                        vlog(LOG_WARN, "%s: cannot cut its partial last row: %s", path,
                             strerror(-r));
        }
        free(files);
}

/* The GPUs' devices whose kernel-log lines the post-mortem puts first: those the
 * previous run recorded, then this start's (a GPU that fell off the bus may be absent
 * now). */
static void gpus_of(const struct runstate *prev, const struct runstate *now,
                    struct pm_klog_gpus *ret)
{
        const struct runstate *from[2] = {prev, now};
        memset(ret, 0, sizeof(*ret));
        for (unsigned k = 0; k < 2; k++) {
                for (unsigned i = 0; from[k] && i < from[k]->nbus; i++) {
                        bool dup = false;
                        for (unsigned j = 0; j < ret->n; j++)
                                dup |= !strcmp(ret->bdf[j], from[k]->gpu_bus[i]);
                        if (!dup && ret->n < PM_KLOG_MAX_GPUS)
                                memcpy(ret->bdf[ret->n++], from[k]->gpu_bus[i], AER_BDF_LEN);
                }
        }
}

/* The sampled GPUs' PCI devices, those whose identity is read, into now. */
static void note_bus(struct runstate *now, const struct frame *f)
{
        now->nbus = 0;
        for (unsigned i = 0; i < f->ngpus && i < VIGIL_MAX_GPUS && now->nbus < RUNSTATE_MAX_BUS;
             i++)
                if (f->gpus[i].present &&
                    aer_bdf_from_bus_id(f->gpus[i].pci_bus_id, now->gpu_bus[now->nbus],
                                        AER_BDF_LEN) == 0)
                        now->nbus++;
}

/* This start's GPUs in the state: the count to expect next time (core/gpu_count.h) and
 * the sampled GPUs' PCI devices known so far. */
static void note_gpus(struct runstate *now, const struct runstate *prev, struct vigil_ctx *ctx)
{
        now->gpus = gpu_count_remember(prev && prev->gpus_known, prev ? prev->gpus : 0,
                                       gpu_missing_seen(ctx), &now->gpus_known);
        note_bus(now, ctx->frame);
}

/* After an unclean end: the post-mortem, its events.log line and the warning. */
static void examine(struct pm_sink *s, struct vigil_ctx *ctx, const struct runstate *prev,
                    enum runstate_end kind)
{
        struct pm_klog_gpus gpus;
        gpus_of(prev, &s->now, &gpus);
        struct postmortem_input in = {.log_dir = ctx->log_dir,
                                      .gpus = &gpus,
                                      .root = ctx->opt->root,
                                      .kind = kind,
                                      .prev = prev,
                                      .boot_id = s->now.boot_id,
                                      .now_ns = ctx->frame->self.started_real_ns};
        char quiet[48] = "unknown", line[1700];
        struct strbuf sb;
        struct postmortem_info *info = calloc(1, sizeof(*info));
        int r = info ? postmortem_write(&in, info) : -ENOMEM;
        if (r < 0) {
                free(info);
                vlog(LOG_WARN, "previous run: %s; cannot write its post-mortem: %s",
                     runstate_end_text(kind), strerror(-r));
                eventlog_event(ctx->events, in.now_ns, EV_POSTMORTEM, "end=%s error=\"%s\"",
                               runstate_end_name(kind), strerror(-r));
                return;
        }
        if (info->quiet_ns > 0)
                fmt_time_iso_ms(quiet, sizeof(quiet), info->quiet_ns);
        eventlog_event(ctx->events, in.now_ns, EV_POSTMORTEM, "end=%s cause=%s quiet=%s file=%s",
                       runstate_end_name(kind), info->cause, quiet, info->rel);
        int c = pm_cause_find(info->cause);
        ctx->extra->last_end_cause = c >= 0 ? c + 1 : 0;
        sb_init_fixed(&sb, line, sizeof(line));
        runstate_finding(info, &sb);
        vlog(LOG_WARN, "%s", sb.buf);
        ctx->postmortem = info; /* the daemon frees it last (free_daemon) */
}

/* The machine's identity into the state, and the warning a cloned image needs: the
 * state file came with the image, from the machine it was made on. */
static void note_identity(struct runstate *now, const struct runstate *prev,
                          const struct vigil_ctx *ctx)
{
        const struct machine_ident *m = &ctx->extra->ident;
        snprintf(now->machine_id, sizeof(now->machine_id), "%s", m->machine_id);
        snprintf(now->hardware_id, sizeof(now->hardware_id), "%s", m->hardware_id);
        if (!runstate_cloned(prev, m->machine_id, m->hardware_id))
                return;
        /* Kept as recorded, so every start says it until the machine ID is renewed. */
        snprintf(now->hardware_id, sizeof(now->hardware_id), "%s", prev->hardware_id);
        vlog(LOG_WARN,
             "machine ID %s looks cloned: %s/%s recorded it on hardware %s, this machine is %s "
             "(%s); machines made from one disk image share /etc/machine-id, and their pushed "
             "series merge unless hardware_id tells them apart. Give this one its own: rm "
             "/etc/machine-id && systemd-machine-id-setup, then restart vigil",
             m->machine_id, ctx->log_dir, RUNSTATE_FILE, prev->hardware_id, m->hardware_id,
             m->hardware_src);
}

static int pm_init(struct vigil_ctx *ctx, void **ret_state)
{
        struct runstate prev;
        if (!ctx->log_dir)
                return -ENODEV;
        struct pm_sink *s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        snprintf(s->log_dir, sizeof(s->log_dir), "%s", ctx->log_dir);
        runstate_boot_id(ctx->opt->root, s->now.boot_id, sizeof(s->now.boot_id));
        int r = runstate_load(ctx->log_dir, &prev);
        /* A state file that does not parse says only that a run was there. */
        enum runstate_end kind = r == -ENOENT ? RUNSTATE_FIRST
                                 : r < 0      ? RUNSTATE_UNKNOWN
                                              : runstate_classify(&prev, s->now.boot_id);
        if (r == 0)
                memcpy(s->now.unclean, prev.unclean, sizeof(s->now.unclean));
        note_gpus(&s->now, r == 0 ? &prev : NULL, ctx);
        note_identity(&s->now, r == 0 ? &prev : NULL, ctx);
        if (runstate_end_unclean(kind)) {
                s->now.unclean[kind]++;
                s->now.last_unclean_ns = now_real_ns();
                examine(s, ctx, r == 0 ? &prev : NULL, kind);
                repair_logs(ctx->log_dir);
        } else if (r == 0) {
                s->now.last_unclean_ns = prev.last_unclean_ns;
        }
        ctx->extra->runs_known = true;
        ctx->extra->previous_end = (int)kind;
        for (unsigned k = 0; k < 3; k++)
                ctx->extra->unclean_ends[k] = s->now.unclean[RUNSTATE_KILLED + k];
        s->now.pid = getpid();
        s->now.started_ns = ctx->frame->self.started_real_ns;
        r = runstate_save(ctx->log_dir, &s->now);
        if (r < 0)
                vlog(LOG_WARN, "cannot write %s/%s: %s", ctx->log_dir, RUNSTATE_FILE, strerror(-r));
        *ret_state = s;
        return 0;
}

/* True when the frame's sampled GPUs' PCI devices differ from those now records
 * (compared in place: this runs every GPU tick). */
static bool bus_changed(const struct runstate *now, const struct frame *f)
{
        char bdf[AER_BDF_LEN];
        unsigned n = 0;
        for (unsigned i = 0; i < f->ngpus && i < VIGIL_MAX_GPUS && n < RUNSTATE_MAX_BUS; i++) {
                if (!f->gpus[i].present ||
                    aer_bdf_from_bus_id(f->gpus[i].pci_bus_id, bdf, sizeof(bdf)) != 0)
                        continue;
                if (n >= now->nbus || strcmp(bdf, now->gpu_bus[n]) != 0)
                        return true;
                n++;
        }
        return n != now->nbus;
}

/* The GPUs' PCI devices are known once the NVML source has read their identity (at
 * their first sample): the state records them then, so that a run killed later has
 * them. A write only when they changed. */
VIGIL_HOT static int pm_write(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        struct pm_sink *s = state;
        (void)t;
        if (!bus_changed(&s->now, ctx->frame))
                return 0;
        note_bus(&s->now, ctx->frame);
        int r = runstate_save(s->log_dir, &s->now);
        return r < 0 ? r : 0;
}

/* The clean stop: the marker that tells the next start nothing went wrong. */
static void pm_fini(void *state, struct vigil_ctx *ctx)
{
        struct pm_sink *s = state;
        (void)ctx;
        if (!s)
                return;
        s->now.stopped_ns = now_real_ns();
        int r = runstate_save(s->log_dir, &s->now);
        if (r < 0)
                vlog(LOG_WARN, "cannot write %s/%s: %s", s->log_dir, RUNSTATE_FILE, strerror(-r));
        free(s);
}

const struct vigil_sink vigil_sink_postmortem = {
    .name = "postmortem",
    .clocks = VCLOCK_BIT(VCLOCK_GPU), /* no rows: the start, the GPUs' devices, the stop */
    .init = pm_init,
    .write = pm_write,
    .fini = pm_fini,
};
