/* SPDX-License-Identifier: Apache-2.0 */
/* Status and snapshot requests between `vigil status|snapshot` and the daemon. */
#include "daemon/control.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/gpu_status.h"
#include "core/health.h"
#include "daemon/lock.h"
#include "core/run_findings.h"
#include "core/runstate.h"
#include "core/counters.h"
#include "report/postmortem.h"
#include "util/clock.h"
#include "util/fmt.h"
#include "util/log.h"
#include "util/pfile.h"

/* " label V unit" with a comma before all but the first, nothing when v is missing
 * (a machine without the sensor says nothing, never "nan"). */
/* The status text's bound: 256 GPUs' lines, the verdict and the findings fit. */
#define STATUS_MAX (512 * 1024)

static void put_val(struct strbuf *out, const char *label, double v, int decimals, const char *unit)
{
        if (!VAL_OK(v))
                return;
        char last = out->len ? out->buf[out->len - 1] : ':';
        sb_printf(out, "%s %s %.*f%s", last == ':' ? "" : ",", label, decimals, v, unit);
}

/* End a line started at mark, or drop it when nothing followed its first n bytes. */
static void end_line(struct strbuf *out, size_t mark, size_t n)
{
        if (out->len == mark + n) {
                out->len = mark;
                out->buf[mark] = '\0';
                return;
        }
        sb_putc(out, '\n');
}

void control_status_text(struct vigil_ctx *ctx, const struct sched *s, int64_t real_ns,
                         struct strbuf *out)
{
        const struct frame *f = ctx->frame;
        const struct self_frame *self = &f->self;
        int64_t up = (now_mono_ns() - self->started_mono_ns) / NSEC_PER_SEC;
        char ts[48];
        fmt_time_iso_ms(ts, sizeof(ts), real_ns);
        sb_printf(out, "vigil %s pid %d, status at %s\n", VIGIL_VERSION, (int)getpid(), ts);
        sb_printf(out, "running %lldh%02lldm, logging to %s%s\n", (long long)(up / 3600),
                  (long long)(up % 3600 / 60), ctx->log_dir ? ctx->log_dir : "(nothing)",
                  ctx->disk_paused ? " (PAUSED: disk low)" : "");
        sb_printf(out,
                  "samples: host %llu, gpu %llu, pss %llu; missed deadlines %llu; "
                  "write errors %llu, sync errors %llu\n",
                  (unsigned long long)self->samples[VCLOCK_HOST],
                  (unsigned long long)self->samples[VCLOCK_GPU],
                  (unsigned long long)self->samples[VCLOCK_PSS],
                  (unsigned long long)sched_missed(s), (unsigned long long)self->write_errors,
                  (unsigned long long)self->sync_errors);
        if (ctx->postmortem) {
                runstate_finding(ctx->postmortem, out);
                sb_putc(out, '\n');
        }
        if (ctx->health)
                health_say_text(ctx->health, (double)real_ns / 1e9, "", out);
        const struct push_counters *p = ctx->extra ? &ctx->extra->push : NULL;
        if (p && p->on) {
                char last[48] = "never";
                if (!isnan(p->last_success_s))
                        fmt_time_iso_ms(last, sizeof(last), (int64_t)(p->last_success_s * 1e9));
                sb_printf(out,
                          "remote-write: queue %llu bytes, %llu samples, oldest %.0f s; sent %llu, "
                          "retried %llu, dropped %llu (queue full %llu, not queued %llu, "
                          "refused %llu, damaged %llu); last success %s\n",
                          (unsigned long long)p->queue_bytes, (unsigned long long)p->queue_samples,
                          isnan(p->oldest_age_s) ? 0.0 : p->oldest_age_s,
                          (unsigned long long)p->sent, (unsigned long long)p->retried,
                          (unsigned long long)(p->dropped_full + p->dropped_write +
                                               p->dropped_reject + p->dropped_damage),
                          (unsigned long long)p->dropped_full, (unsigned long long)p->dropped_write,
                          (unsigned long long)p->dropped_reject,
                          (unsigned long long)p->dropped_damage, last);
        }
        const struct alert_counters *am = ctx->extra ? &ctx->extra->alerts : NULL;
        if (am && am->on)
                sb_printf(out,
                          "alertmanager: %llu alerts delivered, %llu failed requests, %llu "
                          "alerts not delivered yet\n",
                          (unsigned long long)am->sent, (unsigned long long)am->errors,
                          (unsigned long long)am->pending);
        const struct host_frame *h = &f->host;
        size_t mark = out->len;
        sb_puts(out, "host:");
        put_val(out, "cpu", h->cpu_total_pct, 1, "%");
        put_val(out, "memory available",
                VAL_OK(h->mem_avail_bytes) ? h->mem_avail_bytes / 1048576.0 : VAL_MISSING, 0,
                " MB");
        put_val(out, "temperature", h->temp_c, 1, " C");
        end_line(out, mark, strlen("host:"));
        for (unsigned i = 0; i < f->nwatches; i++) {
                const struct watch_frame *w = &f->watches[i];
                sb_printf(out, "watch %s:", w->name);
                put_val(out, "processes", w->count, 0, "");
                put_val(out, "PSS", VAL_OK(w->pss_bytes) ? w->pss_bytes / 1048576.0 : VAL_MISSING,
                        1, " MB");
                put_val(out, "cpu", w->cpu_pct, 1, "%");
                sb_putc(out, '\n');
        }
        for (unsigned i = 0; i < f->ngpus; i++) {
                const struct gpu_frame *g = &f->gpus[i];
                if (!g->present)
                        continue;
                if (!g->ok) {
                        sb_printf(out, "gpu%u %s: FAILING (%s)\n", g->index, g->name, g->error);
                } else {
                        sb_printf(out, "gpu%u %s:", g->index, g->name);
                        put_val(out, "temperature", g->temp_c, 0, " C");
                        put_val(out, "power", g->power_w, 0, " W");
                        put_val(out, "limit", g->power_limit_w, 0, " W");
                        /* What the driver enforces: below the limit under a power brake,
                         * a board or thermal limit. */
                        put_val(out, "enforced limit", f->gpu_stats[i].enforced_limit_w, 0, " W");
                        put_val(out, "fan", g->nfans ? g->fan_speed_pct[0] : VAL_MISSING, 0, "%");
                        sb_putc(out, '\n');
                }
                sb_printf(out, "gpu%u: ", g->index);
                gpu_status_line(out, &f->gpu_stats[i], up);
                sb_putc(out, '\n');
        }
        struct findings *fs = malloc(sizeof(*fs));
        if (fs) {
                run_findings_build(ctx, sched_missed(s), fs);
                findings_text(fs, "", out);
                free(fs);
        }
}

void control_write_status(struct vigil_ctx *ctx, const struct sched *s, int64_t real_ns)
{
        struct strbuf sb;
        if (sb_init_heap(&sb, 16384, STATUS_MAX) < 0)
                return;
        control_status_text(ctx, s, real_ns, &sb);
        ssize_t w = write(STDERR_FILENO, sb.buf, sb.len);
        (void)w;
        if (!ctx->log_dir) {
                sb_free(&sb);
                return;
        }
        char tmp[1200], path[1200];
        snprintf(tmp, sizeof(tmp), "%s/.status.txt.tmp", ctx->log_dir);
        snprintf(path, sizeof(path), "%s/status.txt", ctx->log_dir);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0) {
                sb_free(&sb);
                return;
        }
        w = write(fd, sb.buf, sb.len);
        close(fd);
        if (w == (ssize_t)sb.len)
                rename(tmp, path);
        else
                unlink(tmp);
        sb_free(&sb);
}

void control_take_snapshot_request(struct vigil_ctx *ctx)
{
        char buf[sizeof(ctx->snapshot_reason)];
        snprintf(ctx->snapshot_reason, sizeof(ctx->snapshot_reason), "requested");
        if (ctx->log_dir && read_line_at(ctx->log_dir, "/snapshot.request", buf, sizeof(buf)) > 0) {
                /* Keep the reason printable: it goes into file contents and logs. */
                for (char *p = buf; *p; p++)
                        if (*p < 0x20 || *p == 0x7f)
                                *p = ' ';
                snprintf(ctx->snapshot_reason, sizeof(ctx->snapshot_reason), "%s", buf);
        }
        ctx->snapshot_requested = 1;
        vlog(LOG_INFO, "snapshot requested: %s", ctx->snapshot_reason);
}

/* No instance runs: when the last one ended uncleanly and none has started since, what
 * is known of it (the post-mortem's header and what happened) to stdout. */
static void pending_unclean(const char *log_dir)
{
        struct strbuf sb;
        if (sb_init_heap(&sb, 8192, 1024 * 1024) < 0)
                return;
        if (postmortem_pending(log_dir, "", true, &sb) == 0) {
                fwrite(sb.buf, 1, sb.len, stdout);
                printf("The whole post-mortem: vigil postmortem %s\n", log_dir);
        }
        sb_free(&sb);
}

/* No instance runs: the verdict it left in LOG-DIR/health.state, when there is one. */
static void saved_health(const char *log_dir)
{
        struct health *h = malloc(sizeof(*h));
        struct strbuf sb;
        if (!h || sb_init_heap(&sb, 4096, 64 * 1024) < 0) {
                free(h);
                return;
        }
        health_init(h, "", NULL, NULL);
        int r = health_load(log_dir, h);
        if (r == 0) {
                sb_printf(&sb, "The verdict it left (%s/%s):\n", log_dir, HEALTH_FILE);
                health_say_text(h, (double)now_real_ns() / 1e9, "", &sb);
                fwrite(sb.buf, 1, sb.len, stdout);
        } else if (r != -ENOENT) {
                fprintf(stderr, "vigil: cannot read %s/%s: %s\n", log_dir, HEALTH_FILE,
                        r == -EINVAL ? "not a health state file" : strerror(-r));
        }
        sb_free(&sb);
        free(h);
}

static int find_instance(const char *log_dir, pid_t *ret_pid)
{
        int r = lock_owner(log_dir, ret_pid);
        if (r == -EACCES || r == -EPERM) {
                /* The lock file cannot be read: an instance may well run (as root). */
                fprintf(stderr,
                        "vigil: cannot read %s/vigil.pid: %s (ask as root or as a member of the "
                        "log directory's group)\n",
                        log_dir, strerror(-r));
                return r;
        }
        if (r < 0) {
                fprintf(stderr, "vigil: no running instance writes to %s\n", log_dir);
                pending_unclean(log_dir);
                return -ESRCH;
        }
        return 0;
}

int control_cmd_status(const char *log_dir)
{
        pid_t pid;
        char path[1200];
        struct stat st;
        int r = find_instance(log_dir, &pid);
        if (r == -ESRCH)
                saved_health(log_dir);
        if (r < 0)
                return 1;
        snprintf(path, sizeof(path), "%s/status.txt", log_dir);
        struct timespec before = {0, 0};
        if (stat(path, &st) == 0)
                before = st.st_mtim;
        if (kill(pid, SIGUSR1) < 0) {
                fprintf(stderr, "vigil: cannot signal pid %d: %s\n", (int)pid, strerror(errno));
                return 1;
        }
        /* The daemon answers at its next wake-up: at most one interval, plus slack. */
        for (int i = 0; i < 100; i++) {
                struct timespec ts = {0, 50 * 1000 * 1000};
                nanosleep(&ts, NULL);
                if (stat(path, &st) == 0 &&
                    (st.st_mtim.tv_sec != before.tv_sec || st.st_mtim.tv_nsec != before.tv_nsec)) {
                        char *buf = malloc(STATUS_MAX + 1);
                        int n = buf ? read_file_at(NULL, path, buf, STATUS_MAX + 1) : -ENOMEM;
                        if (n > 0)
                                fwrite(buf, 1, (size_t)n, stdout);
                        free(buf);
                        if (n > 0)
                                return 0;
                }
        }
        fprintf(stderr, "vigil: pid %d did not answer within 5 s\n", (int)pid);
        return 1;
}

int control_cmd_snapshot(const char *log_dir, const char *reason)
{
        pid_t pid;
        char path[1200];
        if (find_instance(log_dir, &pid) < 0)
                return 1;
        snprintf(path, sizeof(path), "%s/snapshot.request", log_dir);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd >= 0) {
                size_t n = strnlen(reason, 120);
                ssize_t w = write(fd, reason, n);
                (void)w;
                close(fd);
        }
        if (kill(pid, SIGUSR2) < 0) {
                fprintf(stderr, "vigil: cannot signal pid %d: %s\n", (int)pid, strerror(errno));
                return 1;
        }
        printf("vigil: snapshot requested from pid %d (%s)\n", (int)pid, reason);
        return 0;
}
