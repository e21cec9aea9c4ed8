/* SPDX-License-Identifier: Apache-2.0 */
/* The health verdict: one state per component of the machine, with its reason, since
 * when, the evidence file and the action to take, for a scheduler (Kubernetes
 * node-problem-detector, a Slurm health check) and a person.
 *
 * Components, named as `vigil health` and /health print them:
 *   gpuN.memory gpuN.pcie gpuN.nvlink gpuN.fabric gpuN.thermal gpuN.power gpuN.driver
 *   gpuN        the worst of its parts
 *   gpu.PART    a GPU part of a line that names no GPU (a GPU missing from the bus)
 *   host.memory host.storage host.kernel
 *   pi.power pi.thermal pi.storage pi.display pi.network pi.player (on a Raspberry Pi)
 * A state is healthy, degraded or unhealthy. The model is fed with events.log lines
 * (health_feed_event(), the same text whether the daemon taps its own lines or a reader
 * replays the file) through ONE table of rules (core/health_rules.c): which kind of line,
 * under which condition, gives which state for which component, and when it clears:
 *   HU_LINE    when a clearing line of the same component comes (a GPU count back, a
 *              file system writable again, a Pi's under-voltage cleared);
 *   HU_PROVEN  when the component has proved itself: HEALTH_PROVE_S seconds with no
 *              new error, counted from the last error, or for a GPU that stopped
 *              answering from the line that says it answers again, and for a failure
 *              whose action is a reboot only from the first tick of a later boot (so a
 *              GPU that asked for a reboot stays unhealthy across that reboot until it
 *              has answered HEALTH_PROVE_S seconds on the new boot);
 *   HU_PERSON  only when a person clears it (`vigil health clear COMPONENT REASON`,
 *              a HEALTH_CLEARED line), which clears any state.
 * Escalation: a failure whose action is "reset the GPU" or "reboot the machine" that
 * comes back on the same component within HEALTH_ESCALATE_S of the remedy (the proof
 * began, or a person cleared it) asks to "inspect the hardware" instead, and stays until
 * a person clears it. gpud escalates a reboot-class Xid to hardware inspection once it
 * recurs after DefaultRebootThreshold (2) reboots (leptonai/gpud
 * components/accelerator/nvidia/xid/threshold.go, DefaultRebootThreshold; health_state.go,
 * evolveHealthyState); vigil asks after the first recurrence within a day.
 *
 * The state persists in LOG-DIR/health.state (written atomically, health_save()), so a
 * restart or a reboot keeps it. Depends on util/ and core/event_kinds only; an Xid's
 * action comes from the resolver the caller gives (detect/xid_catalog.h's
 * xid_event_action()). */
#ifndef VIGIL_CORE_HEALTH_H
#define VIGIL_CORE_HEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/event_kinds.h"
#include "util/strbuf.h"

#define HEALTH_FILE         "health.state"
#define HEALTH_MAX          160   /* component entries kept; more are dropped (counted) */
#define HEALTH_NAME_LEN     24    /* "gpu15.memory", NUL included */
#define HEALTH_REASON_LEN   200   /* cut beyond */
#define HEALTH_WORK_GPUS    64    /* GPUs whose workloads the reasons name */
#define HEALTH_WORK_LEN     160   /* a GPU's workloads text, cut beyond */
#define HEALTH_EVIDENCE_LEN 256   /* the evidence file's path, cut beyond */
#define HEALTH_PROVE_S      600   /* a component proves itself: 10 min without an error */
#define HEALTH_ESCALATE_S   86400 /* a reset/reboot failure back within a day escalates */
#define HEALTH_FILE_MAX     (64 * 1024)
#define HEALTH_MAX_GPUS     64  /* GPUs listed as watched */
#define HEALTH_RECHECK_S    120 /* a start's time to see a kept condition again */

enum health_state { HEALTH_HEALTHY, HEALTH_DEGRADED, HEALTH_UNHEALTHY, HEALTH_STATE_COUNT };

/* When a state a rule gave clears (see the top of this file). */
enum health_until { HU_LINE, HU_PROVEN, HU_PERSON };

/* One component's verdict. since/last_error/proving_since are Unix seconds (NAN: none). */
struct health_entry {
        char name[HEALTH_NAME_LEN];
        enum health_state state;
        enum event_action action; /* never EA_FROM_EVENT */
        enum health_until until;
        bool await_answer; /* a GPU that stopped answering: the proof waits for it */
        bool await_boot;   /* a reboot-class failure: the proof waits for a later boot */
        bool remedy_seen;  /* the answer or the boot it waited for came */
        char reason[HEALTH_REASON_LEN];
        char evidence[HEALTH_EVIDENCE_LEN]; /* "" when none */
        double since;
        double last_error;
        double proving_since;
        char boot_id[40]; /* the boot of the last error ("" unknown) */
        /* Escalation: when the last reset/reboot-class failure was remedied (NAN: none),
         * and how many came back within HEALTH_ESCALATE_S of theirs. */
        double remedied_t;
        unsigned recurrences;
        /* A state held while a condition lasts, loaded at a start: the detectors measure
         * the condition again from scratch, so it clears at this Unix time unless a
         * line sets it again first (NAN: not rechecked). Not kept in the file. */
        double recheck_until;
        /* The state and action last announced with a HEALTH line (health_next_change). */
        enum health_state announced;
        enum event_action announced_action;
};

/* An Xid's action, from the catalog (xid_event_action()); an SXid's likewise (the
 * Fabric Manager guide's class, detect/sxid_catalog.h). */
typedef enum event_action (*health_xid_action_fn)(unsigned code);

/* The verdict. Only the head, work[0..nwork) and e[0..n) are ever written or read:
 * health_init() clears the head alone and health_copy() copies what is used, so the
 * pages of the entries a machine never needs stay untouched (unmapped) in every copy. */
struct health {
        size_t n;
        uint64_t dropped; /* entries that found no room */
        uint64_t gen;     /* bumped at every change: save and publish when it moved */
        unsigned ngpus;   /* GPUs watched: gpu0..gpu(N-1) listed even when healthy */
        bool pi;          /* a Raspberry Pi: its parts are listed */
        char boot_id[40]; /* this boot's id ("" unknown) */
        health_xid_action_fn xid_action;  /* NULL: an Xid asks to inspect the hardware */
        health_xid_action_fn sxid_action; /* NULL: an SXid asks to inspect the hardware */
        unsigned nwork;
        /* Whose work was on each GPU (its last GPU_PROCESSES line's workloads=,
         * core/workload.h), appended to the reason a GPU's part is given: kept in memory
         * only, for the first HEALTH_WORK_GPUS GPUs that name one. */
        struct {
                unsigned gpu;
                char text[HEALTH_WORK_LEN];
        } work[HEALTH_WORK_GPUS];
        struct health_entry e[HEALTH_MAX];
};

/* The rules (core/health_rules.c). */
struct health_rule {
        enum event_kind kind;
        /* The condition: the line's key= is one of values (space-separated words); key
         * NULL: every line of the kind; values NULL: the key is present. */
        const char *key;
        const char *values;
        bool exact;       /* values is one value, spaces and all ("GPU is lost") */
        const char *key2; /* a second condition, the same way (NULL: none) */
        const char *values2;
        /* The effect. HR_SET gives state (for HEALTH_HEALTHY no row: a clearing row);
         * HR_CLEAR clears the component's HU_LINE state; HR_ANSWERS ends a lost GPU's wait
         * (its proof starts); HR_EVIDENCE names the line's file as the evidence of the
         * component's open states; HR_PERSON is a person's clear (component= key). */
        enum { HR_SET, HR_CLEAR, HR_ANSWERS, HR_EVIDENCE, HR_PERSON } effect;
        enum health_state state;
        enum health_until until;
        /* The component: EC_NONE takes the kind row's. */
        enum event_component component;
        /* The action: EA_NONE takes the kind row's (EA_FROM_EVENT: the Xid's); a row
         * that wants none though its kind has one sets no_action. */
        enum event_action action;
        bool no_action;
        /* Degraded when the resolved action is only "restart the workload", no state
         * at all for "none" (an Xid's or SXid's state follows its catalog action). */
        bool state_by_action;
        bool await_answer; /* the GPU stopped answering: wait for an HR_ANSWERS line */
};

extern const struct health_rule health_rules[];
extern const size_t health_rules_count;

/* Empty h for this boot (boot_id "" when unknown); the resolvers may be NULL. */
void health_init(struct health *h, const char *boot_id, health_xid_action_fn xid_action,
                 health_xid_action_fn sxid_action);
/* dst becomes a copy of src: its head, work[0..nwork) and e[0..n) (never the unused
 * slots, whose pages need not be touched). */
void health_copy(struct health *dst, const struct health *src);

/* Feed one events.log line's text (after its time stamp; len bytes) seen at Unix time
 * t through the rules. Lines no rule matches change nothing. */
void health_feed_event(struct health *h, double t, const char *text, size_t len);

/* GPU gpu (its NVML index) answered a sample at Unix time t: its parts waiting for it
 * start their proof (the daemon calls it for answering GPUs; a GPU_RECOVERED line does
 * the same). */
void health_gpu_answers(struct health *h, unsigned gpu, double t);

/* Advance the proofs to Unix time now: a component whose proof ran HEALTH_PROVE_S turns
 * healthy; a reboot-class failure of an earlier boot starts its proof at now. */
void health_tick(struct health *h, double now);

/* A daemon starts at Unix time now: the states held while a condition lasts (HU_LINE),
 * kept from an earlier run, clear at now + HEALTH_RECHECK_S unless a line sets them
 * again (the detectors start over and say so when the condition still holds). */
void health_recheck(struct health *h, double now);

/* Clear the component name ("gpu3": it and its parts; "gpu3.memory": that part; "all":
 * everything) as a person asked. Returns the number of entries cleared (0: none was
 * unhealthy or degraded). Use it through a HEALTH_CLEARED line (health_feed_event) so
 * events.log records it. */
int health_clear(struct health *h, const char *name, double t);

/* True when name is a component a person may clear: "all", gpuN, gpuN.PART, gpu.PART,
 * host.PART, pi.PART. */
bool health_name_ok(const char *name);

/* The next entry whose state or action differs from the one last announced, marked
 * announced; NULL when none. *ret_from gets the state announced before. */
const struct health_entry *health_next_change(struct health *h, enum health_state *ret_from);

/* "healthy", "degraded", "unhealthy". */
const char *health_state_name(enum health_state s);

/* The verdict of the machine: the worst state of every entry. */
enum health_state health_overall(const struct health *h);

/* One listed row: a component, its state and the entry behind it (NULL: healthy). */
struct health_row {
        char name[HEALTH_NAME_LEN];
        enum health_state state;
        enum event_action action;
        const struct health_entry *e;
};
/* Call fn for each listed component in order: each watched GPU (its verdict, then its
 * parts), gpu.PART entries, host parts, Pi parts, then entries of GPUs no longer
 * watched. */
void health_walk(const struct health *h, void (*fn)(void *arg, const struct health_row *r),
                 void *arg);

/* The table `vigil health` prints (one row per component). */
void health_table(const struct health *h, struct strbuf *out);
/* The JSON of /health and `vigil health --json`: {"state":..,"components":[...]}. */
void health_json(const struct health *h, struct strbuf *out);
/* The one line of the node-problem-detector convention: "healthy" or "unhealthy:
 * gpu3 (reboot the machine: Xid 79 ...); 2 more" (no newline). */
void health_line(const struct health *h, struct strbuf *out);

/* What a person reads on every screen (the live view, `vigil status`, the exit summary,
 * `vigil report`, the dashboard): one line per component that is not healthy, the
 * unhealthy ones first, then the degraded, the gravest action first within each (a GPU
 * off the bus: "reboot the machine" before its driver's "reset the GPU"), then in
 * health_walk() order (parts only: a GPU's own row repeats its worst part), as
 *   "unhealthy gpu3.pcie: reboot the machine; since 2026-12-06 14:02:05; REASON"
 * (local time as the findings write it, only "14:02:05" on now's day; the action before
 * the reason, so a line cut to a terminal's width keeps it), or the
 * one line "healthy: every component" when none is. fn gets each line's state and text
 * (no newline; valid during the call). now: Unix seconds (NAN: every time with its
 * date). Returns the number of lines that are not healthy (0: the one healthy line). */
size_t health_say(const struct health *h, double now,
                  void (*fn)(void *arg, enum health_state s, const char *line), void *arg);
/* The block the text screens print: "INDENTHealth: healthy: every component\n" when all
 * are, else "INDENTHealth: unhealthy\n" (the machine's state) then health_say()'s lines,
 * each after INDENT and two spaces. Returns what health_say() returns. */
size_t health_say_text(const struct health *h, double now, const char *indent, struct strbuf *out);

/* The state file's text for h, and back. health_parse fills h (already initialised
 * for this boot: its boot id and resolver are kept) and returns 0, or -EINVAL when the
 * text is not a health state file. */
void health_format(const struct health *h, struct strbuf *out);
int health_parse(struct health *h, const char *s, size_t n);
/* Read DIR/health.state into h (initialised for this boot). 0, -ENOENT when there is
 * none, -EINVAL when it does not parse, another -errno when unreadable; h untouched on
 * failure. */
int health_load(const char *dir, struct health *h);
/* Replace DIR/health.state with h, atomically and durably. 0 or -errno. */
int health_save(const char *dir, const struct health *h);

#endif
