/* SPDX-License-Identifier: Apache-2.0 */
/* Diagnostic snapshots: the files GPU crash and fan-spike snapshots and Raspberry Pi
 * incident snapshots are written to, plus the rate limiter and the crash follow-up
 * schedule that decide when to write them. The content (kernel log, PCIe state,
 * recent samples, program output) comes from the caller, as sections.
 *
 * A snapshot is LOGDIR/{crashes,spikes,incidents}/KIND-YYYYMMDD-HHMMSS.log (local
 * time, like the reference logger; "-2", "-3"... when the name exists). It is written
 * to a hidden temporary file (O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, mode 0640),
 * fsync'ed, and renamed without replacing anything, so a snapshot is never
 * half-present under its final name. Its size is bounded (SNAPSHOT_MAX_BYTES): past
 * the bound the writer drops the rest and ends the file with one line
 * "(snapshot truncated at 4 MB)". Writes are buffered; errors are kept and returned
 * by snapshot_commit(). The log directory is locked by the daemon (vigil.pid), so
 * one process writes snapshots there. */
#ifndef VIGIL_DETECT_SNAPSHOT_H
#define VIGIL_DETECT_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

#define SNAPSHOT_MAX_BYTES (4u * 1024 * 1024)
#define SNAPSHOT_NAME_MAX  96 /* a base name, without directory and ".log" */

enum snapshot_kind {
        SNAPSHOT_CRASH,    /* crashes/crash-*.log: NVML failure, Xid, GPU lost */
        SNAPSHOT_SPIKE,    /* spikes/spike-*.log: fan spike */
        SNAPSHOT_INCIDENT, /* incidents/incident-*.log: Raspberry Pi incident, on request */
        SNAPSHOT_KIND_COUNT
};

/* "crashes", "spikes", "incidents"; NULL for a bad kind. */
const char *snapshot_dir_name(enum snapshot_kind kind);
/* "crash", "spike", "incident"; NULL for a bad kind. */
const char *snapshot_prefix(enum snapshot_kind kind);

/* The header block, as the reference logger's _write_snapshot_header writes it:
 *   === GPU CRASH DETECTED ===
 *   Time: 2026-12-02T12:00:00.123456+00:00
 *   Script: vigil v0.1.0
 *   GPU: NVIDIA GeForce RTX 5090 (00000000:01:00.0)
 *   Error: Event: XidCriticalError            (only when error is set)
 *   Uptime: 3600s, 36000 samples
 *   Peaks: 83C / 575W
 *   Event #: 1
 *   Pwr breach:0 Fan inv:2 Spur throt:0
 *   (blank line)
 * Without a GPU (gpu_name NULL: a Raspberry Pi incident) the GPU, Peaks and
 * "Pwr breach" lines are left out. extra_lines ("Key: value\n" lines) go before the
 * blank line. Missing peaks (NAN) print as "n/a". */
struct snapshot_header {
        const char *title;     /* "GPU CRASH DETECTED", "FAN SPIKE DETECTED" */
        int64_t real_ns;       /* the Time: line (CLOCK_REALTIME), printed in UTC */
        const char *gpu_name;  /* NULL: no GPU lines */
        const char *gpu_pci;   /* NVML bus id */
        const char *error;     /* NULL or "": no Error line */
        int64_t uptime_s;      /* vigil's running time */
        uint64_t samples;      /* samples taken of this GPU (or host samples) */
        double peak_temp_c;    /* NAN when unknown */
        double peak_power_w;   /* NAN when unknown */
        uint64_t event_number; /* crash or spike number */
        uint64_t power_breaches, fan_inversions, spurious_throttles;
        const char *extra_lines; /* NULL or preformatted lines, each ending in '\n' */
};

/* Append the header block to out. Pure (no clock, no files). */
void snapshot_format_header(struct strbuf *out, const struct snapshot_header *h);

struct snapshot; /* opaque: one snapshot being written */

/* Start a snapshot named KIND-YYYYMMDD-HHMMSS (real_ns in local time) under
 * log_dir, creating the kind's directory (0750) if needed. Returns 0 or -errno; the
 * caller owns *ret and must end it with snapshot_commit() or snapshot_abort(). */
int snapshot_open(struct snapshot **ret, const char *log_dir, enum snapshot_kind kind,
                  int64_t real_ns);
/* The same with an explicit base name (no '/', not starting with '.', at most
 * SNAPSHOT_NAME_MAX - 8 bytes), e.g. "crash-20261202-120000-followup-10s". */
int snapshot_open_named(struct snapshot **ret, const char *log_dir, enum snapshot_kind kind,
                        const char *base);

/* Lower the size bound (tests); at least 256 bytes. */
void snapshot_set_limit(struct snapshot *s, size_t max_bytes);

/* Write the header block (snapshot_format_header). */
void snapshot_header(struct snapshot *s, const struct snapshot_header *h);
/* Start a section: "\n=== TITLE ===\n", with the leading newline left out right after
 * a blank line (so the first section follows the header as in the reference), and a
 * newline added first when the previous body did not end with one. */
void snapshot_section(struct snapshot *s, const char *title);
/* Append body text. Bytes past the bound are dropped (see above). */
void snapshot_write(struct snapshot *s, const char *data, size_t n);
void snapshot_puts(struct snapshot *s, const char *text);
void snapshot_printf(struct snapshot *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Append a builder's text; when the builder overflowed its own bound, a line
 * "(section truncated)" follows. */
void snapshot_put_sb(struct snapshot *s, const struct strbuf *sb);

/* Bytes written so far (the file's size if committed now), and whether the bound
 * was hit. */
size_t snapshot_bytes(const struct snapshot *s);
bool snapshot_truncated(const struct snapshot *s);

/* Flush, fsync, and move the file to its final name without replacing another
 * (adding -2, -3... up to -99), then fsync the directory. Writes the final path into
 * ret_path (cap bytes; may be NULL). Frees s. 0 or the first -errno (then nothing is
 * left under the final name, and the temporary file is removed). */
int snapshot_commit(struct snapshot *s, char *ret_path, size_t cap);
/* Remove the temporary file and free s; accepts NULL. */
void snapshot_abort(struct snapshot *s);

/* Rate limiting: one snapshot of a kind per cooldown (crash 60 s, spike 10 s,
 * incident 60 s, as the reference does). Pure state: the caller passes the time. */
struct snapshot_limiter {
        int64_t cooldown_ns;
        int64_t last_ns;     /* CLOCK_MONOTONIC of the last snapshot allowed */
        bool taken;          /* a snapshot has been allowed at last_ns */
        unsigned report_max; /* suppressions reported after each snapshot (3) */
        uint64_t suppressed; /* suppressed since the last snapshot allowed */
        uint64_t suppressed_total;
};

enum snapshot_verdict {
        SNAPSHOT_TAKE,            /* write the snapshot now */
        SNAPSHOT_SUPPRESS_REPORT, /* suppressed: log it (one of the first report_max) */
        SNAPSHOT_SUPPRESS_QUIET   /* suppressed: count only */
};

/* Set up the limiter with the kind's cooldown. */
void snapshot_limiter_init(struct snapshot_limiter *l, enum snapshot_kind kind);
/* Decide at mono_ns (CLOCK_MONOTONIC). TAKE resets the suppression count. */
enum snapshot_verdict snapshot_limiter_check(struct snapshot_limiter *l, int64_t mono_ns);

/* Follow-ups after a crash snapshot at T: PCIe and kernel-log state again at T+10 s,
 * T+60 s and T+300 s (a GPU's config space was seen to read all ones only ~49 s after
 * the crash), as KIND-...-followup-10s.log next to the crash file. Pure state:
 * several crashes may be pending at once (the oldest schedule is replaced when all
 * slots are busy). */
#define SNAPSHOT_FOLLOWUP_STEPS 3
#define SNAPSHOT_FOLLOWUP_SLOTS 4

/* The delays, in seconds: 10, 60, 300. */
extern const unsigned snapshot_followup_delays_s[SNAPSHOT_FOLLOWUP_STEPS];

struct snapshot_followup_slot {
        bool armed;
        int tag;                      /* the caller's: which GPU */
        int64_t base_mono_ns;         /* the crash snapshot's time */
        unsigned done;                /* bit i: step i returned as due */
        char base[SNAPSHOT_NAME_MAX]; /* the crash snapshot's base name */
};

struct snapshot_followups {
        struct snapshot_followup_slot slot[SNAPSHOT_FOLLOWUP_SLOTS];
};

struct snapshot_followup_due {
        int tag;
        unsigned delay_s;
        char crash[SNAPSHOT_NAME_MAX];     /* the crash snapshot's base name */
        char name[SNAPSHOT_NAME_MAX + 24]; /* "crash-20261202-120000-followup-10s" */
};

/* Schedule the follow-ups of a crash snapshot written at mono_ns. crash_path is its
 * path or base name ("…/crashes/crash-20261202-120000.log" or
 * "crash-20261202-120000"); tag is handed back with each due follow-up. */
void snapshot_followups_arm(struct snapshot_followups *f, int tag, int64_t mono_ns,
                            const char *crash_path);
/* The follow-ups due at mono_now, oldest crash first, each returned once (a step
 * that was missed while another was due is returned too). Writes at most cap into
 * out; returns the number written. */
size_t snapshot_followups_due(struct snapshot_followups *f, int64_t mono_now,
                              struct snapshot_followup_due *out, size_t cap);
/* CLOCK_MONOTONIC of the next follow-up due, or 0 when none is pending. */
int64_t snapshot_followups_next(const struct snapshot_followups *f);

#endif
