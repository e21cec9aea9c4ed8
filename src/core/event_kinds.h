/* SPDX-License-Identifier: Apache-2.0 */
/* The kinds of events.log lines: one row per `type=` name, in event_kinds[]
 * (core/event_kinds.c). A line's text (after its time stamp) reads
 *   type=NAME key=value key="quoted value" ...
 * and its row says everything the rest of vigil knows of the kind:
 *   - the name, written by every emitter through the row (event_begin(),
 *     eventlog_event()), never spelled by hand;
 *   - the keys its lines may carry, in the order they are written;
 *   - its finding handler (core/findings_events.c), or event_finding_none;
 *   - its sentence for people (the dashboard), a template rendered by event_sentence(),
 *     or EVENT_SENTENCE_NONE (shown as it is);
 *   - the health component it is about, and the action it suggests.
 * Decoders find a line's row with event_kind_of() and walk it; a new kind is one
 * enum value and one row (tests/unit/test_event_kinds.c checks the table and that no
 * source spells a type). The lines themselves are unchanged byte for byte. */
#ifndef VIGIL_CORE_EVENT_KINDS_H
#define VIGIL_CORE_EVENT_KINDS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"

enum event_kind {
        EV_START,                 /* daemon/daemon.c */
        EV_STOP,                  /* daemon/daemon.c */
        EV_WRITE_RESUMED,         /* daemon/daemon.c */
        EV_DISK_LOW,              /* daemon/daemon.c */
        EV_DISK_RESUMED,          /* daemon/daemon.c */
        EV_NVML_EVENT,            /* detect/gpu_event_text.c, detect/gpu_events.c */
        EV_NVML_FAILED,           /* detect/gpu_rules.c */
        EV_GPU_RECOVERED,         /* detect/gpu_rules.c */
        EV_CRASH_SNAPSHOT,        /* detect/gpu_events.c */
        EV_SNAPSHOT_SUPPRESSED,   /* detect/gpu_events.c */
        EV_SPIKE_SNAPSHOT,        /* detect/gpu_events.c */
        EV_GPU_PROCESSES,         /* detect/gpu_events.c */
        EV_CRASH_FOLLOWUP,        /* detect/gpu_events.c */
        EV_EVENT_LISTENER,        /* detect/gpu_events.c */
        EV_GPU_COUNT,             /* detect/gpu_missing.c */
        EV_THROTTLE,              /* detect/gpu_rules.c */
        EV_ANOMALY,               /* detect/gpu_rules.c */
        EV_TDP_CHANGE,            /* detect/gpu_rules.c */
        EV_ENFORCED_LIMIT_CHANGE, /* detect/gpu_rules.c */
        EV_TEMP_OVER_MAX,         /* detect/gpu_rules.c */
        EV_GPU_MEMORY,            /* detect/gpu_rules.c */
        EV_PCIE_LINK,             /* detect/gpu_rules.c */
        EV_NVLINK,                /* detect/nvlink_rules.c */
        EV_FABRIC,                /* detect/nvlink_rules.c */
        EV_KERNEL_GPU,            /* detect/kernel_gpu.c */
        EV_INCIDENT,              /* detect/rpi_incident.c */
        EV_SNAPSHOT,              /* detect/rpi_incident.c */
        EV_RPI_TEMP,              /* detect/rpi_rules.c */
        EV_RPI_THROTTLE,          /* detect/rpi_rules.c */
        EV_RPI_THROTTLE_HISTORY,  /* detect/rpi_rules.c */
        EV_RPI_ARM_CLOCK,         /* detect/rpi_rules.c */
        EV_SHM,                   /* detect/rpi_rules.c */
        EV_STORAGE,               /* detect/storage_rules.c */
        EV_STORAGE_ERRORS,        /* detect/storage_rules.c */
        EV_STORAGE_FILL,          /* detect/storage_rules.c */
        EV_DISPLAY,               /* detect/signage_rules.c */
        EV_DISPLAY_DPMS,          /* detect/signage_rules.c */
        EV_DISPLAY_MONITOR,       /* detect/signage_rules.c */
        EV_DISPLAY_CEC,           /* detect/signage_rules.c */
        EV_NETWORK_LINK,          /* detect/signage_rules.c */
        EV_NETWORK,               /* detect/signage_rules.c */
        EV_SD_WEAR,               /* detect/signage_rules.c */
        EV_TREND,                 /* detect/trend.c */
        EV_POSTMORTEM,            /* local/postmortem_sink.c */
        EV_HEALTH,                /* detect/health_watch.c */
        EV_HEALTH_CLEARED,        /* detect/health_watch.c */
        EV_OOM_KILL,              /* detect/kernel_host.c */
        EV_PROCESS_FAULT,         /* detect/kernel_host.c */
        EV_WATCH,                 /* detect/watch_live.c */
        EV_UNIT,                  /* detect/watch_live.c */
        EV_KIND_COUNT
};

/* The part of the machine a kind of event is about. */
enum event_component {
        EC_NONE, /* vigil itself, or nothing in particular */
        EC_GPU_MEMORY,
        EC_GPU_PCIE,
        EC_GPU_NVLINK,
        EC_GPU_FABRIC,
        EC_GPU_THERMAL,
        EC_GPU_POWER,
        EC_GPU_DRIVER,
        EC_HOST_MEMORY,
        EC_HOST_STORAGE,
        EC_HOST_KERNEL,
        EC_PI_POWER,
        EC_PI_THERMAL,
        EC_PI_STORAGE,
        EC_PI_DISPLAY,
        EC_PI_NETWORK,
        EC_PI_PLAYER,
        EC_COUNT
};

/* What a kind of event asks a person to do, mildest first. */
enum event_action {
        EA_NONE,
        EA_RESTART_WORKLOAD,
        EA_RESET_GPU,
        EA_REBOOT,
        EA_INSPECT_HARDWARE,
        EA_REPLACE_PART,
        EA_FROM_EVENT, /* varies by line: an Xid's, from the catalog's resolution bucket
                        * (xid_event_action() in detect/xid_catalog.h) */
        EA_COUNT
};

/* The text of one line after its time stamp; s need not be NUL-terminated. */
struct event_line {
        const char *s;
        size_t n;
};

struct findings;

/* What a line of the kind adds to the findings: f, the line, its source ("gpu0", or
 * "host" for a line without gpu=) and its time (Unix seconds). */
typedef void (*event_finding_fn)(struct findings *f, const struct event_line *l, const char *src,
                                 double t);

/* A row's sentence for a kind shown as its raw line. */
#define EVENT_SENTENCE_NONE "-"

/* One kind of events.log line. */
struct event_kind_desc {
        const char *name;         /* the value of type=, "NVML_EVENT" */
        const char *keys;         /* the keys after type=, space-separated, in order */
        event_finding_fn finding; /* never NULL: event_finding_none adds nothing */
        /* The sentence: text with {key} for a key's value ("" when absent) and [...]
         * for a part written only when every key in it has a value; or
         * EVENT_SENTENCE_NONE. NULL when .sentence_fn writes it. */
        const char *sentence;
        void (*sentence_fn)(const struct event_line *l, struct strbuf *out);
        enum event_component component;
        enum event_action action;
};

/* The row of kind k. Static; k must be below EV_KIND_COUNT. */
const struct event_kind_desc *event_kind(enum event_kind k);
/* The kind named name (len bytes), or -1 when no row has that name. */
int event_kind_find(const char *name, size_t len);
/* The row of a line's type= word, or NULL without one or for a name no row has. */
const struct event_kind_desc *event_kind_of(const struct event_line *l);

/* Append "type=NAME" for kind k to sb (the emitter appends " key=value" words). */
void event_begin(struct strbuf *sb, enum event_kind k);

/* Append ` key="value"` to sb, a double quote in value written as a single one (it
 * would end the value). */
void event_put(struct strbuf *sb, const char *key, const char *value);

/* The value of "key=" in l, unquoted, into out (cap bytes, NUL-terminated, cut to
 * fit). False (and out "") when the line has no such key. */
bool event_field(const struct event_line *l, const char *key, char *out, size_t cap);

/* Append row d's sentence for line l to out. False (nothing appended) when d's
 * sentence is EVENT_SENTENCE_NONE. Values are cut at EVENT_VALUE_MAX - 1 bytes. */
#define EVENT_VALUE_MAX 160
bool event_sentence(const struct event_kind_desc *d, const struct event_line *l,
                    struct strbuf *out);

/* "gpu.memory", "none"; "?" out of range. Static. */
const char *event_component_name(enum event_component c);
/* "reset the GPU", "none", "from the event"; "?" out of range. Static. */
const char *event_action_text(enum event_action a);

#endif
