/* SPDX-License-Identifier: Apache-2.0 */
/* What happened: one model of the findings of a run or of recorded days, shared by
 * the exit summary, `vigil report` (text and HTML), the dashboard and `vigil status`.
 *
 * A finding is a kind (one entry of findings_kinds[]), a source ("host", "pi",
 * "gpu0"), a key within the kind (an Xid code, an anomaly type, a throttle reason, a
 * file), a count, the first and last time it was seen and a sentence. Findings are
 * fed from events.log lines (findings_feed_event(), the same text whether the daemon
 * taps its own lines or the report reads the file) and from counters (the CSV
 * accumulators, the daemon's own counters) through findings_note().
 *
 * A new kind of finding is one enum value and one entry in findings_kinds[]
 * (findings.c); nothing else needs to know it. Depends only on util/. */
#ifndef VIGIL_CORE_FINDINGS_H
#define VIGIL_CORE_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

enum finding_kind {
        FINDING_POSTMORTEM,      /* the previous run ended uncleanly: its post-mortem (path) */
        FINDING_GPU_LOST,        /* a GPU stopped answering (and maybe came back) */
        FINDING_GPU_MISSING,     /* fewer GPUs answering than the machine should have */
        FINDING_XID,             /* an Xid, by code, with its meaning and action */
        FINDING_CRASH_SNAPSHOT,  /* a crash snapshot (path) */
        FINDING_SPIKE_SNAPSHOT,  /* fan-spike snapshots */
        FINDING_SNAPSHOT,        /* snapshots asked for with `vigil snapshot` */
        FINDING_NVML_FAILED,     /* samples NVML did not answer */
        FINDING_ANOMALY,         /* anomaly flags, by type */
        FINDING_THROTTLE,        /* clock-event reasons, by share of time */
        FINDING_POWER_LIMIT,     /* power-limit (TDP) changes */
        FINDING_ENFORCED_LIMIT,  /* enforced power-limit changes */
        FINDING_PI_THROTTLE,     /* Pi under-voltage / throttling during the run */
        FINDING_PI_BOOT,         /* Pi under-voltage / throttling since boot, before vigil */
        FINDING_TEMPERATURE,     /* host temperature warnings */
        FINDING_INCIDENT,        /* incident snapshots (player down, ...) */
        FINDING_LEAK,            /* a rising process count or PSS: slope and time left */
        FINDING_SHM,             /* /dev/shm filling up */
        FINDING_DISK_PAUSE,      /* writes paused for low disk space */
        FINDING_WRITE_ERRORS,    /* rows or lines not written */
        FINDING_MISSED_DEADLINE, /* samples taken late */
        FINDING_LISTENER,        /* the NVML event listener failed */
        FINDING_STORAGE,         /* a file system read-only, storage errors, one filling up */
        FINDING_KERNEL_GPU,      /* GPU, NVSwitch and PCIe errors of the kernel log, by kind */
        FINDING_WATCH_DOWN,      /* a watched program not running (and maybe back), by watch */
        FINDING_WATCH_RESTART,   /* a watched program restarted (a new pid), by watch */
        FINDING_OOM_KILL,        /* the kernel's OOM killer ended a process, by victim */
        FINDING_PROCESS_FAULT,   /* the kernel ended a process for a fault, by command */
        FINDING_DISPLAY,         /* a screen unplugged, blanked, in standby or replaced */
        FINDING_NETWORK,         /* the machine offline: how often, the longest time */
        FINDING_NVLINK,          /* NVLink errors rising, links down, a fabric not ready */
        FINDING_KIND_COUNT
};

struct finding_kind_info {
        const char *name;  /* snake_case, stable: "gpu_lost", "xid" (HTML classes, tests) */
        const char *title; /* what a person reads: "GPU lost", "Xid" */
        bool alarm;        /* something went wrong (false: worth knowing, not an alarm) */
        bool share;        /* value is a share of time (0..1) to print as a percentage */
        bool critical;     /* an alarm that needs someone now (a lost GPU, an Xid) */
        /* What a person does about it, one sentence (the Alertmanager alert's "runbook"
         * annotation); every alarm has one (test_findings), NULL for the others. */
        const char *runbook;
};

/* How serious a finding is, most serious first: the order findings are listed in, and
 * what a screen short of rows drops last (a critical one never). */
enum finding_severity {
        FINDING_CRITICAL, /* the machine or a GPU needs someone now */
        FINDING_WARNING,  /* an alarm that is not critical */
        FINDING_FYI,      /* worth knowing, not an alarm */
        FINDING_SEVERITY_COUNT
};

extern const struct finding_kind_info findings_kinds[FINDING_KIND_COUNT];

#define FINDINGS_MAX      96  /* distinct findings kept; more are counted in dropped */
#define FINDING_TEXT_LEN  200 /* the sentence, cut beyond */
#define FINDING_KEY_LEN   64
#define FINDING_SRC_LEN   16
#define FINDINGS_MAX_SRCS 20 /* sources named in the "watched" line */

struct finding {
        enum finding_kind kind;
        char source[FINDING_SRC_LEN]; /* "host", "pi", "gpu0" */
        char key[FINDING_KEY_LEN];    /* "79", "fan_spike", "SwPowerCap", a file; "" */
        bool alarm;                   /* the kind's alarm, or false for a benign key */
        uint64_t count;               /* times seen (0: present, count unknown) */
        double first_t, last_t;       /* Unix seconds; NAN when unknown */
        double value;                 /* kind-specific: share, seconds lost, per hour */
        double open_t;                /* GPU lost: since when, NAN when back */
        bool cleared;                 /* a Pi condition: its clear came after its last set */
        char text[FINDING_TEXT_LEN];  /* the sentence: meaning and action, path, ... */

        /* From the kind and key; an Xid's from its class (findings_events.c). */
        enum finding_severity severity;
};

/* Only the head and items[0..n) are ever written or read: findings_init() clears the
 * head alone and findings_copy() copies what is used, so the unused items' pages stay
 * untouched (unmapped) in every copy. */
struct findings {
        size_t n;
        uint64_t dropped; /* findings that found no free entry */
        uint64_t gen;     /* bumped at every change: a copy is stale when it differs */
        unsigned nsources;
        char sources[FINDINGS_MAX_SRCS][FINDING_SRC_LEN]; /* what was watched */
        bool running; /* of a run that goes on: a GPU is "still lost", not "at the end" */
        struct finding items[FINDINGS_MAX];
};

/* Empty f. */
void findings_init(struct findings *f);
/* dst becomes a copy of src: its head and items[0..n). */
void findings_copy(struct findings *dst, const struct findings *src);

/* Name a source that was watched (shown in the "clean" line; a source without
 * findings still counts as watched). Duplicates are ignored. */
void findings_add_source(struct findings *f, const char *source);

/* The finding (kind, source, key), added when new; NULL when the table is full (then
 * dropped is counted). source and key may be NULL ("" then). Times start as NAN. */
struct finding *findings_get(struct findings *f, enum finding_kind kind, const char *source,
                             const char *key);

/* The finding (kind, source, key) when there is one, else NULL (nothing added). */
const struct finding *findings_find(const struct findings *f, enum finding_kind kind,
                                    const char *source, const char *key);

/* Count n more of (kind, source, key) at Unix time t (NAN: no time), with a sentence
 * (NULL keeps the one it has). Returns the finding or NULL (table full). */
struct finding *findings_note(struct findings *f, enum finding_kind kind, const char *source,
                              const char *key, uint64_t n, double t, const char *text);

/* Feed one events.log line's text (after its time stamp; len bytes) seen at Unix time
 * t to the handler its kind's row names (core/event_kinds.c). Lines of no known kind,
 * and of kinds that make no finding, are ignored. */
void findings_feed_event(struct findings *f, double t, const char *text, size_t len);

/* True when no finding is an alarm: nothing at all went wrong on any source. */
bool findings_clean(const struct findings *f);

/* "critical", "warning", "fyi" (a count of hidden findings says these). */
const char *findings_severity_name(enum finding_severity s);

/* Sort: by severity (critical first), then by kind, source and first time. */
void findings_sort(struct findings *f);

/* The text block, each line starting with indent: "What happened:" and one line per
 * finding, labelled with its severity ("(critical) gpu0: Xid 79 ...", "(warning) ...",
 * "(fyi) ..."), or "What happened: nothing — clean (watched: host, gpu0)". */
void findings_text(const struct findings *f, const char *indent, struct strbuf *out);

/* The same as an HTML fragment (<section class="findings">), text escaped; each
 * finding an <li> of class "finding KIND SEVERITY [alarm]" led by its severity's label
 * (<span class="sev">critical</span>). */
void findings_html(const struct findings *f, struct strbuf *out);

/* One finding's sentence without its source: "Xid 79 (1x, 12:00:01): GPU has ...".
 * running: the run goes on (a lost GPU is "still lost", else "still lost at the end"). */
void findings_line(const struct finding *x, bool running, struct strbuf *out);

/* A finding's label: "critical", "warning" or "fyi" (a finding that is no alarm). */
const char *findings_label(const struct finding *x);

#endif
