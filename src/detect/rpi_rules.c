/* SPDX-License-Identifier: Apache-2.0 */
/* Raspberry Pi rules and their detector. See rpi_rules.h.
 *
 *   type=RPI_TEMP level=warm temp=72.5C warn=70.0C crit=80.0C   (a line it emits) */
#include "detect/rpi_rules.h"
#include "detect/storage_rules.h"

#include <errno.h>
#include <stdlib.h>

#include "core/rpi_throttle.h"
#include "core/eventlog.h"
#include "util/log.h"
#include "util/hot.h"

#define TEMP_CLEAR_C    2.0
#define SHM_CLEAR_PCT   2.0
#define ARM_BELOW_RATIO 0.95
#define ARM_CLEAR_RATIO 0.97
#define ARM_CONFIRM     3
#define RPI_MAX_RULES   16
#define RPI_LINE_MAX    320

struct rpi_rules_state {
        struct rpi_thresholds th;
        enum rpi_level level[RPI_MAX_RULES];
        enum rpi_level pending[RPI_MAX_RULES]; /* a new level waiting for confirmation */
        unsigned pending_n[RPI_MAX_RULES];
        bool have_word; /* prev_word holds a complete throttled word */
        uint32_t prev_word;
        bool history_done;    /* the since-boot line was written (or there was nothing) */
        bool said_unreliable; /* the "since-boot bits unreliable" line was written */
        rpi_rules_sink_fn sink;
        void *sink_arg;
};

/* The source writes throttled only from a whole word. */
static bool full_word(const struct rpi_frame *p)
{
        return p->present && p->throttled_valid;
}

static enum rpi_level temp_level(double t, double warn, double crit)
{
        return t >= crit ? RPI_LEVEL_CRIT : t >= warn ? RPI_LEVEL_WARN : RPI_LEVEL_OK;
}

VIGIL_HOT static int eval_temp(const struct rpi_rule *r, const struct frame *f,
                               const struct rpi_thresholds *th, enum rpi_level prev)
{
        (void)r;
        double t = f->rpi.temp_c;
        if (!f->rpi.present || !VAL_OK(t))
                return -1;
        enum rpi_level raw = temp_level(t, th->temp_warn_c, th->temp_crit_c);
        if (raw >= prev)
                return (int)raw;
        /* Going down: only once below the thresholds by the margin. */
        enum rpi_level held =
            temp_level(t, th->temp_warn_c - th->temp_clear_c, th->temp_crit_c - th->temp_clear_c);
        return (int)(held < prev ? held : prev);
}

VIGIL_HOT static int eval_bit(const struct rpi_rule *r, const struct frame *f,
                              const struct rpi_thresholds *th, enum rpi_level prev)
{
        (void)th;
        (void)prev;
        const struct rpi_frame *p = &f->rpi;
        if (full_word(p))
                return (p->throttled >> r->bit) & 1u ? RPI_LEVEL_WARN : RPI_LEVEL_OK;
        /* Without a word, the rpi_volt alarm still tells under-voltage now. */
        if (r->bit == 0 && p->present && VAL_OK(p->undervolt_alarm))
                return p->undervolt_alarm != 0 ? RPI_LEVEL_WARN : RPI_LEVEL_OK;
        return -1;
}

/* The clock the ARM should run at: the firmware's maximum, or the kernel's request
 * when the governor asked for less. */
static double arm_target(const struct frame *f)
{
        double target = f->rpi.arm_max_hz;
        double req = f->host.cpu_freq_hz[0];
        if (VAL_OK(req) && req > 0 && req < target)
                target = req;
        return target;
}

VIGIL_HOT static int eval_arm(const struct rpi_rule *r, const struct frame *f,
                              const struct rpi_thresholds *th, enum rpi_level prev)
{
        (void)r;
        const struct rpi_frame *p = &f->rpi;
        /* Only a measured clock says anything: sysfs gives the kernel's request. */
        if (!p->present || !VAL_OK(p->arm_hz) || !VAL_OK(p->arm_max_hz) ||
            p->clock_src == RPI_SRC_SYSFS || p->clock_src == RPI_SRC_NONE)
                return -1;
        double ratio = prev == RPI_LEVEL_OK ? th->arm_below_ratio : th->arm_clear_ratio;
        return p->arm_hz < arm_target(f) * ratio ? RPI_LEVEL_WARN : RPI_LEVEL_OK;
}

VIGIL_HOT static int eval_shm(const struct rpi_rule *r, const struct frame *f,
                              const struct rpi_thresholds *th, enum rpi_level prev)
{
        (void)r;
        const struct host_frame *h = &f->host;
        if (!VAL_OK(h->shm_used_bytes) || !VAL_OK(h->shm_total_bytes) || h->shm_total_bytes <= 0)
                return -1;
        double pct = h->shm_used_bytes / h->shm_total_bytes * 100.0;
        double limit =
            prev == RPI_LEVEL_OK ? th->shm_full_pct : th->shm_full_pct - th->shm_clear_pct;
        return pct >= limit ? RPI_LEVEL_WARN : RPI_LEVEL_OK;
}

static void desc_temp(const struct rpi_rule *r, const struct frame *f,
                      const struct rpi_thresholds *th, enum rpi_level lvl, struct strbuf *sb)
{
        (void)r;
        static const char *const names[] = {"normal", "warm", "hot"};
        event_begin(sb, EV_RPI_TEMP);
        sb_printf(sb, " level=%s temp=%.1fC warn=%.1fC crit=%.1fC", names[lvl], f->rpi.temp_c,
                  th->temp_warn_c, th->temp_crit_c);
}

static void desc_bit(const struct rpi_rule *r, const struct frame *f,
                     const struct rpi_thresholds *th, enum rpi_level lvl, struct strbuf *sb)
{
        (void)th;
        char hex[16];
        event_begin(sb, EV_RPI_THROTTLE);
        sb_printf(sb, " condition=\"%s\" state=%s", rpi_throttle_label(r->bit),
                  lvl ? "set" : "cleared");
        if (full_word(&f->rpi)) {
                rpi_throttle_hex((uint32_t)f->rpi.throttled, hex, sizeof(hex));
                sb_printf(sb, " throttled=%s", hex);
        } else {
                sb_puts(sb, " source=rpi_volt");
        }
        /* The moment's readings, so a brown-out can be told from a hot case. */
        double temp = VAL_OK(f->host.temp_c) ? f->host.temp_c : f->rpi.temp_c;
        if (VAL_OK(temp))
                sb_printf(sb, " temp=%.1fC", temp);
        if (VAL_OK(f->rpi.volt_core_v))
                sb_printf(sb, " volt=%.4fV", f->rpi.volt_core_v);
        if (VAL_OK(f->rpi.arm_hz))
                sb_printf(sb, " arm=%.0fMHz", f->rpi.arm_hz / 1e6);
}

static void desc_arm(const struct rpi_rule *r, const struct frame *f,
                     const struct rpi_thresholds *th, enum rpi_level lvl, struct strbuf *sb)
{
        (void)r;
        (void)th;
        event_begin(sb, EV_RPI_ARM_CLOCK);
        sb_printf(sb, " state=%s arm=%.0fMHz target=%.0fMHz max=%.0fMHz",
                  lvl ? "below" : "restored", f->rpi.arm_hz / 1e6, arm_target(f) / 1e6,
                  f->rpi.arm_max_hz / 1e6);
}

static void desc_shm(const struct rpi_rule *r, const struct frame *f,
                     const struct rpi_thresholds *th, enum rpi_level lvl, struct strbuf *sb)
{
        (void)r;
        const struct host_frame *h = &f->host;
        event_begin(sb, EV_SHM);
        sb_printf(sb, " state=%s used=%.1f%% limit=%.1f%%", lvl ? "full" : "ok",
                  h->shm_used_bytes / h->shm_total_bytes * 100.0, th->shm_full_pct);
}

/* A rule on one throttled bit, named as /metrics names the condition. */
#define BIT_RULE(name_, bit_)                                                                      \
        {                                                                                          \
                .name = name_, .bit = bit_, .confirm = 1, .evaluate = eval_bit,                    \
                .describe = desc_bit                                                               \
        }

const struct rpi_rule rpi_rules[] = {
    {.name = "temperature", .confirm = 1, .evaluate = eval_temp, .describe = desc_temp},
    BIT_RULE(RPI_COND_UNDER_VOLTAGE, 0),
    BIT_RULE(RPI_COND_ARM_FREQ_CAPPED, 1),
    BIT_RULE(RPI_COND_THROTTLED, 2),
    BIT_RULE(RPI_COND_SOFT_TEMP_LIMIT, 3),
    {.name = "arm_below_max", .confirm = ARM_CONFIRM, .evaluate = eval_arm, .describe = desc_arm},
    {.name = "shm_full", .confirm = 1, .evaluate = eval_shm, .describe = desc_shm},
    /* storage health, every machine (detect/storage_rules.c) */
    {.name = "fs_readonly",
     .confirm = 1,
     .evaluate = storage_eval_readonly,
     .describe = storage_desc_readonly},
    {.name = "storage_errors",
     .confirm = 1,
     .evaluate = storage_eval_errors,
     .describe = storage_desc_errors},
    {.name = "fs_filling",
     .confirm = 3,
     .evaluate = storage_eval_filling,
     .describe = storage_desc_filling},
};
const unsigned rpi_nrules = sizeof(rpi_rules) / sizeof(rpi_rules[0]);

_Static_assert(sizeof(rpi_rules) / sizeof(rpi_rules[0]) <= RPI_MAX_RULES, "rule table too long");

void rpi_thresholds_from_options(struct rpi_thresholds *th, const struct vigil_options *o)
{
        th->temp_warn_c = o->temp_warn_c;
        th->temp_crit_c = o->temp_crit_c;
        th->temp_clear_c = TEMP_CLEAR_C;
        th->shm_full_pct = o->shm_full_pct;
        th->shm_clear_pct = SHM_CLEAR_PCT;
        th->arm_below_ratio = ARM_BELOW_RATIO;
        th->arm_clear_ratio = ARM_CLEAR_RATIO;
}

struct rpi_rules_state *rpi_rules_new(const struct rpi_thresholds *th)
{
        struct rpi_rules_state *st = calloc(1, sizeof(*st));
        if (!st)
                return NULL;
        st->th = *th;
        return st;
}

void rpi_rules_free(struct rpi_rules_state *st)
{
        free(st);
}

void rpi_rules_set_sink(void *state, rpi_rules_sink_fn fn, void *arg)
{
        struct rpi_rules_state *st = state;
        st->sink = fn;
        st->sink_arg = arg;
}

VIGIL_HOT enum rpi_level rpi_rules_level(const struct rpi_rules_state *st, unsigned i)
{
        return i < rpi_nrules ? st->level[i] : RPI_LEVEL_OK;
}

static void emit(struct rpi_rules_state *st, int64_t real_ns, const char *line)
{
        if (st->sink)
                st->sink(st->sink_arg, real_ns, line);
}

/* One rule: evaluate, confirm, and describe a change. True when it changed. */
VIGIL_HOT static bool step_rule(struct rpi_rules_state *st, unsigned i, const struct frame *f,
                                int64_t real_ns)
{
        const struct rpi_rule *r = &rpi_rules[i];
        int lvl = r->evaluate(r, f, &st->th, st->level[i]);
        if (lvl < 0)
                return false; /* input missing: neither counts nor resets */
        if ((enum rpi_level)lvl == st->level[i]) {
                st->pending_n[i] = 0;
                return false;
        }
        if (st->pending_n[i] == 0 || st->pending[i] != (enum rpi_level)lvl) {
                st->pending[i] = (enum rpi_level)lvl;
                st->pending_n[i] = 0;
        }
        if (++st->pending_n[i] < r->confirm)
                return false;
        st->level[i] = (enum rpi_level)lvl;
        st->pending_n[i] = 0;
        char line[RPI_LINE_MAX];
        struct strbuf sb;
        sb_init_fixed(&sb, line, sizeof(line));
        r->describe(r, f, &st->th, st->level[i], &sb);
        emit(st, real_ns, line);
        return true;
}

/* Lines from the throttled word itself: since-boot history at start, and conditions
 * that came and went between two samples. Returns lines emitted. */
VIGIL_HOT static unsigned step_word(struct rpi_rules_state *st, const struct frame *f,
                                    int64_t real_ns)
{
        if (!full_word(&f->rpi))
                return 0;
        uint32_t word = (uint32_t)f->rpi.throttled;
        char line[RPI_LINE_MAX], hex[16], text[256];
        struct strbuf sb;
        unsigned n = 0;
        rpi_throttle_hex(word, hex, sizeof(hex));
        if (!rpi_frame_sticky_reliable(&f->rpi)) {
                if (!st->said_unreliable) {
                        sb_init_fixed(&sb, line, sizeof(line));
                        event_begin(&sb, EV_RPI_THROTTLE_HISTORY);
                        sb_puts(&sb, " since_boot=unknown source=property-tag "
                                     "reason=\"gencmd get_throttled is not reachable and the "
                                     "kernel's rpi_volt driver clears the since-boot bits of the "
                                     "tag's word every 2 s; HAS: flags are left out\"");
                        emit(st, real_ns, line);
                        n++;
                }
                st->said_unreliable = true;
                st->have_word = false;
                return n;
        }
        if (!st->history_done && rpi_throttle_since_boot(word, text, sizeof(text)) > 0) {
                sb_init_fixed(&sb, line, sizeof(line));
                event_begin(&sb, EV_RPI_THROTTLE_HISTORY);
                sb_printf(&sb, " throttled=%s since_boot=\"%s\"", hex, text);
                emit(st, real_ns, line);
                n++;
        }
        st->history_done = true;
        uint32_t missed = st->have_word ? rpi_throttle_missed(st->prev_word, word) : 0;
        for (unsigned bit = 0; bit < 4; bit++) {
                if (!(missed & (1u << bit)))
                        continue;
                sb_init_fixed(&sb, line, sizeof(line));
                event_begin(&sb, EV_RPI_THROTTLE);
                sb_printf(&sb,
                          " condition=\"%s\" state=occurred-between-samples "
                          "throttled=%s",
                          rpi_throttle_label(bit), hex);
                emit(st, real_ns, line);
                n++;
        }
        st->have_word = true;
        st->prev_word = word;
        return n;
}

VIGIL_HOT unsigned rpi_rules_eval(struct rpi_rules_state *st, const struct frame *f,
                                  int64_t real_ns)
{
        unsigned n = step_word(st, f, real_ns);
        for (unsigned i = 0; i < rpi_nrules; i++)
                n += step_rule(st, i, f, real_ns);
        return n;
}

/* The daemon's sink for rule lines: events.log, and stderr so the journal has them
 * (the since-boot history is the headline finding on an unattended Pi). */
static void to_eventlog(void *arg, int64_t real_ns, const char *line)
{
        struct vigil_ctx *ctx = arg;
        eventlog_printf(ctx->events, real_ns, "%s", line);
        vlog(LOG_WARN, "%s", line);
}

static int detector_init(struct vigil_ctx *ctx, void **ret_state)
{
        struct rpi_thresholds th;
        rpi_thresholds_from_options(&th, ctx->opt);
        struct rpi_rules_state *st = rpi_rules_new(&th);
        if (!st)
                return -ENOMEM;
        rpi_rules_set_sink(st, to_eventlog, ctx);
        *ret_state = st;
        return 0;
}

VIGIL_HOT static void detector_feed(void *state, struct vigil_ctx *ctx, const struct tick *t)
{
        rpi_rules_eval(state, ctx->frame, t->real_ns);
}

static void detector_fini(void *state)
{
        rpi_rules_free(state);
}

const struct vigil_detector vigil_detector_rpi_rules = {
    .name = "rpi-rules",
    .clocks = VCLOCK_BIT(VCLOCK_HOST),
    .init = detector_init,
    .feed = detector_feed,
    .fini = detector_fini,
};
