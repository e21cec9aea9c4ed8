/* SPDX-License-Identifier: Apache-2.0 */
/* The table of events.log kinds. See event_kinds.h. */
#include "core/event_kinds.h"

#include <string.h>

#include "core/event_findings.h"
#include "util/parse.h"

/* "GPU N: " before a sentence, when the line names a GPU. */
#define WHO "[GPU {gpu}: ]"

static void nvml_event_sentence(const struct event_line *l, struct strbuf *out);

/* Designated by kind: a row left out is a hole test_event_kinds finds. */
static const struct event_kind_desc rows[EV_KIND_COUNT] = {
    [EV_START] = {.name = "START",
                  .keys = "version pid",
                  .finding = event_finding_none,
                  .sentence = "vigil started"},
    [EV_STOP] = {.name = "STOP",
                 .keys = "samples",
                 .finding = event_finding_none,
                 .sentence = "vigil stopped"},
    [EV_WRITE_RESUMED] = {.name = "WRITE_RESUMED",
                          .keys = "dropped_rows failed_s error",
                          .finding = evf_write_resumed,
                          .sentence = "writes work again: {dropped_rows} rows lost ({error})",
                          .component = EC_HOST_STORAGE},
    [EV_DISK_LOW] = {.name = "DISK_LOW",
                     .keys = "free_mb action",
                     .finding = evf_disk_low,
                     .sentence = "disk low ({free_mb} MB free): writes paused",
                     .component = EC_HOST_STORAGE},
    [EV_DISK_RESUMED] = {.name = "DISK_RESUMED",
                         .keys = "free_mb paused_s",
                         .finding = evf_disk_resumed,
                         .sentence = "writes resumed after {paused_s} s ({free_mb} MB free)",
                         .component = EC_HOST_STORAGE},
    /* An Xid's action is its catalog entry's resolution bucket (nvidia_action=). */
    [EV_NVML_EVENT] = {.name = "NVML_EVENT",
                       .keys = "gpu event count window mask data xid class meaning action "
                               "severity nvidia_action recovery_action source",
                       .finding = evf_nvml_event,
                       .sentence_fn = nvml_event_sentence,
                       .component = EC_GPU_DRIVER,
                       .action = EA_FROM_EVENT},
    [EV_NVML_FAILED] = {.name = "NVML_FAILED",
                        .keys = "gpu error",
                        .finding = evf_nvml_failed,
                        .sentence = WHO "stopped answering ({error})",
                        .component = EC_GPU_DRIVER,
                        .action = EA_RESET_GPU},
    [EV_GPU_RECOVERED] = {.name = "GPU_RECOVERED",
                          .keys = "gpu failures",
                          .finding = evf_gpu_recovered,
                          .sentence = WHO "answers again, after {failures} failed samples",
                          .component = EC_GPU_DRIVER},
    [EV_CRASH_SNAPSHOT] = {.name = "CRASH_SNAPSHOT",
                           .keys = "gpu number file reason",
                           .finding = evf_crash_snapshot,
                           .sentence = WHO "crash snapshot {file} ({reason})"},
    [EV_SNAPSHOT_SUPPRESSED] = {.name = "SNAPSHOT_SUPPRESSED",
                                .keys = "gpu kind number cooldown noted_in",
                                .finding = event_finding_none,
                                .sentence = WHO "no {kind} snapshot for event #{number} "
                                                "({cooldown} cooldown)[; noted in {noted_in}]"},
    [EV_SPIKE_SNAPSHOT] = {.name = "SPIKE_SNAPSHOT",
                           .keys = "gpu number file",
                           .finding = evf_spike_snapshot,
                           .sentence = WHO "fan-spike snapshot {file}",
                           .component = EC_GPU_THERMAL},
    [EV_GPU_PROCESSES] = {.name = "GPU_PROCESSES",
                          .keys = "gpu reason compute graphics pids workloads",
                          .finding = event_finding_none,
                          .sentence = WHO "processes ({reason}): {compute} compute, "
                                          "{graphics} graphics: {pids}[; workloads {workloads}]"},
    [EV_CRASH_FOLLOWUP] = {.name = "CRASH_FOLLOWUP",
                           .keys = "gpu delay file",
                           .finding = event_finding_none,
                           .sentence = WHO "crash follow-up {delay} after the crash: {file}"},
    [EV_EVENT_LISTENER] = {.name = "EVENT_LISTENER",
                           .keys = "state error",
                           .finding = evf_event_listener,
                           .sentence = "the NVML event listener failed: {error}",
                           .component = EC_GPU_DRIVER},
    /* A GPU gone from the bus comes back, if at all, with a reboot. */
    [EV_GPU_COUNT] = {.name = "GPU_COUNT",
                      .keys = "state answering expected from",
                      .finding = evf_gpu_count,
                      .sentence = "GPUs {state}: {answering} of {expected} expected answer",
                      .component = EC_GPU_PCIE,
                      .action = EA_REBOOT},
    [EV_THROTTLE] = {.name = "THROTTLE",
                     .keys = "gpu from to",
                     .finding = event_finding_none,
                     .sentence = WHO "clock-event reasons now {to} (were {from})",
                     .component = EC_GPU_THERMAL},
    [EV_ANOMALY] = {.name = "ANOMALY",
                    .keys = "gpu flag suppressed",
                    .finding = evf_anomaly,
                    .sentence = WHO "anomaly {flag}",
                    .component = EC_GPU_THERMAL,
                    .action = EA_INSPECT_HARDWARE},
    [EV_TDP_CHANGE] = {.name = "TDP_CHANGE",
                       .keys = "from to delta gpu",
                       .finding = evf_tdp_change,
                       .sentence = WHO "power limit changed from {from} to {to}",
                       .component = EC_GPU_POWER},
    [EV_ENFORCED_LIMIT_CHANGE] = {.name = "ENFORCED_LIMIT_CHANGE",
                                  .keys = "gpu from to delta",
                                  .finding = evf_enforced_limit_change,
                                  .sentence =
                                      WHO "enforced power limit changed from {from} to {to}",
                                  .component = EC_GPU_POWER},
    [EV_TEMP_OVER_MAX] = {.name = "TEMP_OVER_MAX",
                          .keys = "gpu state temp max",
                          .finding = evf_temp_over_max,
                          .sentence = WHO "temperature {temp} against a maximum operating "
                                          "{max} ({state})",
                          .component = EC_GPU_THERMAL,
                          .action = EA_INSPECT_HARDWARE},
    /* A row remapping or page retirement that waits for a reset, a failed remapping, an
     * ECC mode change (detect/gpu_condition.h); the action by state: health_rules.c. */
    [EV_GPU_MEMORY] = {.name = "GPU_MEMORY",
                       .keys = "gpu state remap_pending remap_failure retired_pending "
                               "retired_sbe retired_dbe ecc_mode ecc_mode_pending",
                       .finding = evf_gpu_memory,
                       .sentence = WHO "memory {state}",
                       .component = EC_GPU_MEMORY,
                       .action = EA_RESET_GPU},
    /* A link narrower or slower than the GPU and its slot allow: a riser, a slot, a
     * cable. */
    [EV_PCIE_LINK] = {.name = "PCIE_LINK",
                      .keys = "gpu state gen width max_gen max_width",
                      .finding = evf_pcie_link,
                      .sentence = WHO "PCIe link {state}: gen {gen} x{width} of gen {max_gen} "
                                      "x{max_width}",
                      .component = EC_GPU_PCIE,
                      .action = EA_INSPECT_HARDWARE},
    /* An Xid's action is its catalog entry's; the other kinds' is in action=. */
    [EV_NVLINK] = {.name = "NVLINK",
                   .keys = "gpu link state counter delta total",
                   .finding = evf_nvlink,
                   .sentence = WHO "NVLink link {link} {state}[: {counter} +{delta} "
                                   "({total} in all)]",
                   .component = EC_GPU_NVLINK,
                   .action = EA_RESET_GPU},
    [EV_FABRIC] = {.name = "FABRIC",
                   .keys = "gpu state fabric status health",
                   .finding = evf_fabric,
                   .sentence = WHO "NVLink fabric {state}[: probe {fabric}][, status {status}]"
                                   "[, health {health}]",
                   .component = EC_GPU_FABRIC,
                   .action = EA_REBOOT},
    [EV_KERNEL_GPU] = {.name = "KERNEL_GPU",
                       .keys = "kind gpu pci xid sxid recovery_action driver_gpu held_back "
                               "meaning action text",
                       .finding = evf_kernel_gpu,
                       .sentence = WHO "kernel log, {kind}[ at {pci}]: {meaning}"
                                       "[. Action: {action}]",
                       .component = EC_GPU_DRIVER,
                       .action = EA_FROM_EVENT},
    [EV_INCIDENT] = {.name = "INCIDENT",
                     .keys = "reason snapshot watch",
                     .finding = evf_incident,
                     .sentence = "incident: {reason}, snapshot {snapshot}",
                     .component = EC_PI_PLAYER},
    [EV_SNAPSHOT] = {.name = "SNAPSHOT",
                     .keys = "reason snapshot",
                     .finding = evf_snapshot,
                     .sentence = "snapshot: {reason}, snapshot {snapshot}"},
    [EV_RPI_TEMP] = {.name = "RPI_TEMP",
                     .keys = "level temp warn crit",
                     .finding = evf_rpi_temp,
                     .sentence = "Pi temperature {level}: {temp}",
                     .component = EC_PI_THERMAL,
                     .action = EA_INSPECT_HARDWARE},
    /* Under-voltage: the power supply (or its cable) is too weak. */
    [EV_RPI_THROTTLE] = {.name = "RPI_THROTTLE",
                         .keys = "condition state throttled source temp volt arm",
                         .finding = evf_rpi_throttle,
                         .sentence = "Pi: {condition} {state}",
                         .component = EC_PI_POWER,
                         .action = EA_REPLACE_PART},
    [EV_RPI_THROTTLE_HISTORY] = {.name = "RPI_THROTTLE_HISTORY",
                                 .keys = "throttled since_boot source reason",
                                 .finding = evf_rpi_throttle_history,
                                 .sentence = "Pi since boot: {since_boot}",
                                 .component = EC_PI_POWER,
                                 .action = EA_INSPECT_HARDWARE},
    [EV_RPI_ARM_CLOCK] = {.name = "RPI_ARM_CLOCK",
                          .keys = "state arm target max",
                          .finding = event_finding_none,
                          .sentence = "Pi: ARM clock {state}: {arm} (target {target}, max {max})",
                          .component = EC_PI_THERMAL,
                          .action = EA_INSPECT_HARDWARE},
    [EV_SHM] = {.name = "SHM",
                .keys = "state used limit",
                .finding = evf_shm,
                .sentence = "/dev/shm {state}: {used} used",
                .component = EC_HOST_MEMORY,
                .action = EA_RESTART_WORKLOAD},
    /* A file system the kernel turned read-only, or I/O errors: the card or disk. */
    [EV_STORAGE] = {.name = "STORAGE",
                    .keys = "state fs mount device fstype",
                    .finding = evf_storage,
                    .sentence = "storage: {mount} is {state}",
                    .component = EC_HOST_STORAGE,
                    .action = EA_REPLACE_PART},
    [EV_STORAGE_ERRORS] = {.name = "STORAGE_ERRORS",
                           .keys = "state new total last",
                           .finding = evf_storage_errors,
                           .sentence = "storage errors: {new} new ({total} in all) {last}",
                           .component = EC_HOST_STORAGE,
                           .action = EA_REPLACE_PART},
    [EV_STORAGE_FILL] = {.name = "STORAGE_FILL",
                         .keys = "state fs mount device fstype avail full_in",
                         .finding = evf_storage_fill,
                         .sentence = "storage: {mount} {state}, full in {full_in}",
                         .component = EC_HOST_STORAGE},
    /* A screen unplugged or back (DRM connector status), its monitor's EDID name. */
    [EV_DISPLAY] = {.name = "DISPLAY",
                    .keys = "connector state monitor serial",
                    .finding = evf_display,
                    .sentence = "screen {connector} {state}[: {monitor}]",
                    .component = EC_PI_DISPLAY,
                    .action = EA_INSPECT_HARDWARE},
    /* The connector's DPMS state: a player or compositor blanked the screen. */
    [EV_DISPLAY_DPMS] = {.name = "DISPLAY_DPMS",
                         .keys = "connector dpms",
                         .finding = evf_display_dpms,
                         .sentence = "screen {connector}: display power {dpms}",
                         .component = EC_PI_DISPLAY,
                         .action = EA_RESTART_WORKLOAD},
    /* A different monitor on the connector (EDID identity). */
    [EV_DISPLAY_MONITOR] = {.name = "DISPLAY_MONITOR",
                            .keys = "connector from to",
                            .finding = evf_display_monitor,
                            .sentence = "screen {connector}: a different monitor, {from} "
                                        "\xE2\x86\x92 {to}",
                            .component = EC_PI_DISPLAY},
    /* The TV's power status over HDMI-CEC. */
    [EV_DISPLAY_CEC] = {.name = "DISPLAY_CEC",
                        .keys = "power",
                        .finding = evf_display_cec,
                        .sentence = "TV power (HDMI-CEC): {power}",
                        .component = EC_PI_DISPLAY,
                        .action = EA_INSPECT_HARDWARE},
    /* One interface's link went down or came up. */
    [EV_NETWORK_LINK] = {.name = "NETWORK_LINK",
                         .keys = "interface state carrier_changes",
                         .finding = event_finding_none,
                         .sentence = "network {interface} link {state}[ ({carrier_changes} "
                                     "changes)]",
                         .component = EC_PI_NETWORK,
                         .action = EA_INSPECT_HARDWARE},
    /* The machine offline (no interface with a link, or no default route) or back. */
    [EV_NETWORK] = {.name = "NETWORK",
                    .keys = "state reason",
                    .finding = evf_network,
                    .sentence = "network {state}[: {reason}]",
                    .component = EC_PI_NETWORK,
                    .action = EA_INSPECT_HARDWARE},
    /* The SD card or eMMC wearing out: eMMC estimates or the endurance projection. */
    [EV_SD_WEAR] = {.name = "SD_WEAR",
                    .keys = "state device life_time pre_eol endurance_days",
                    .finding = evf_sd_wear,
                    .sentence = "SD card {device} wear {state}[: life time {life_time}]"
                                "[, pre-EOL {pre_eol}][, {endurance_days} days of endurance "
                                "left]",
                    .component = EC_PI_STORAGE,
                    .action = EA_REPLACE_PART},
    [EV_TREND] = {.name = "TREND",
                  .keys = "field state slope_per_h limit_per_h window runs_out_in",
                  .finding = evf_trend,
                  .sentence = "{field} is {state}: {slope_per_h} per hour",
                  .component = EC_HOST_MEMORY,
                  .action = EA_RESTART_WORKLOAD},
    [EV_POSTMORTEM] = {.name = "POSTMORTEM",
                       .keys = "end cause error quiet file",
                       .finding = evf_postmortem,
                       .sentence =
                           "the previous run ended: {end}[ ({cause})][; quiet since {quiet}]"
                           "[; post-mortem {file}][; no post-mortem ({error})]",
                       .component = EC_HOST_KERNEL},
    /* A component's health verdict changed (core/health.h); written by the verdict, not
     * read by it. */
    [EV_HEALTH] = {.name = "HEALTH",
                   .keys = "component state from action reason evidence",
                   .finding = event_finding_none,
                   .sentence = "health of {component}: {state} (was {from})[; action: {action}]"
                               "[: {reason}]"},
    /* A person cleared a component's verdict (`vigil health clear`). */
    [EV_HEALTH_CLEARED] = {.name = "HEALTH_CLEARED",
                           .keys = "component reason",
                           .finding = event_finding_none,
                           .sentence = "health of {component} cleared by a person: {reason}"},
    /* The OOM killer's victim: watch= when it was one of a --watch's processes. */
    [EV_OOM_KILL] = {.name = "OOM_KILL",
                     .keys = "pid comm watch scope cgroup rss_kb",
                     .finding = evf_oom_kill,
                     .sentence = "out of memory ({scope}): the kernel killed {comm} (pid {pid})"
                                 "[ of watch {watch}][ in {cgroup}][, {rss_kb} kB resident]",
                     .component = EC_HOST_MEMORY,
                     .action = EA_RESTART_WORKLOAD},
    /* A process ended by a fault it did not handle (segfault, trap). */
    [EV_PROCESS_FAULT] = {.name = "PROCESS_FAULT",
                          .keys = "pid comm watch what",
                          .finding = evf_process_fault,
                          .sentence = "the kernel ended {comm} (pid {pid})[ of watch {watch}]: "
                                      "{what}",
                          .component = EC_HOST_KERNEL,
                          .action = EA_RESTART_WORKLOAD},
    /* A watched program (the signage player) gone, back, or restarted under a new pid. */
    [EV_WATCH] = {.name = "WATCH",
                  .keys = "watch state pid old_pid comm down_s restarts cause",
                  .finding = evf_watch,
                  .sentence = "{watch} {state}[ (pid {old_pid})][, now pid {pid}]"
                              "[ after {down_s} s down][: {cause}]",
                  .component = EC_PI_PLAYER,
                  .action = EA_RESTART_WORKLOAD},
    /* The systemd unit of a watch (--watch NAME=unit:UNIT), when its state changes. */
    [EV_UNIT] = {.name = "UNIT",
                 .keys = "watch unit active sub result nrestarts main",
                 .finding = event_finding_none,
                 .sentence = "{watch}: unit {unit} {active}[ ({sub})][, result {result}]"
                             "[, {nrestarts} restarts by systemd][, main process {main}]",
                 .component = EC_PI_PLAYER,
                 .action = EA_RESTART_WORKLOAD},
};

const struct event_kind_desc *event_kind(enum event_kind k)
{
        return &rows[k];
}

int event_kind_find(const char *name, size_t len)
{
        for (int k = 0; k < EV_KIND_COUNT; k++)
                if (rows[k].name && strlen(rows[k].name) == len && !memcmp(rows[k].name, name, len))
                        return k;
        return -1;
}

const struct event_kind_desc *event_kind_of(const struct event_line *l)
{
        char type[40];
        if (!event_field(l, "type", type, sizeof(type)))
                return NULL;
        int k = event_kind_find(type, strlen(type));
        return k < 0 ? NULL : &rows[k];
}

void event_begin(struct strbuf *sb, enum event_kind k)
{
        sb_puts(sb, "type=");
        sb_puts(sb, rows[k].name);
}

void event_put(struct strbuf *sb, const char *key, const char *value)
{
        sb_printf(sb, " %s=\"", key);
        for (const char *p = value; *p; p++)
                sb_putc(sb, *p == '"' ? '\'' : *p);
        sb_putc(sb, '"');
}

bool event_field(const struct event_line *l, const char *key, char *out, size_t cap)
{
        size_t k = strlen(key);
        out[0] = '\0';
        for (size_t i = 0; i + k < l->n; i++) {
                if ((i && l->s[i - 1] != ' ') || memcmp(l->s + i, key, k) || l->s[i + k] != '=')
                        continue;
                const char *v = l->s + i + k + 1, *end = l->s + l->n;
                const char *stop;
                if (v < end && *v == '"') {
                        v++;
                        stop = memchr(v, '"', (size_t)(end - v));
                } else {
                        stop = memchr(v, ' ', (size_t)(end - v));
                }
                if (!stop)
                        stop = end;
                copy_bounded(out, cap, v, (size_t)(stop - v));
                return true;
        }
        return false;
}

/* The key named at p (up to '}'), its value into v. */
static const char *template_key(const struct event_line *l, const char *p, char *v)
{
        char key[32];
        const char *close = strchr(p, '}');
        size_t n = close ? (size_t)(close - p) : strlen(p);
        copy_bounded(key, sizeof(key), p, n);
        event_field(l, key, v, EVENT_VALUE_MAX);
        return close ? close + 1 : p + n;
}

/* Render the template text [p, end) for l onto out; false when a key outside its
 * [...] parts has no value (the caller of a [...] part takes it back). */
static bool render(const struct event_line *l, const char *p, const char *end, struct strbuf *out)
{
        char v[EVENT_VALUE_MAX];
        bool all = true;
        while (p < end) {
                if (*p == '{') {
                        p = template_key(l, p + 1, v);
                        sb_puts(out, v);
                        all &= v[0] != '\0';
                } else if (*p == '[') {
                        const char *close = memchr(p, ']', (size_t)(end - p));
                        if (!close)
                                close = end;
                        size_t mark = out->len;
                        if (!render(l, p + 1, close, out) && mark < out->len) {
                                out->len = mark;
                                out->buf[mark] = '\0';
                        }
                        p = close < end ? close + 1 : end;
                } else {
                        sb_putc(out, *p++);
                }
        }
        return all;
}

bool event_sentence(const struct event_kind_desc *d, const struct event_line *l, struct strbuf *out)
{
        if (d->sentence_fn) {
                d->sentence_fn(l, out);
                return true;
        }
        if (!d->sentence || !strcmp(d->sentence, EVENT_SENTENCE_NONE))
                return false;
        render(l, d->sentence, d->sentence + strlen(d->sentence), out);
        return true;
}

/* An Xid from the catalog (its meaning and action as the line carries them, so the
 * sentence is the catalog's of the day it was written), an Xid the catalog does not
 * list, a GPU gone, a recovery action, any other event by name. */
static void nvml_event_sentence(const struct event_line *l, struct strbuf *out)
{
        char v[EVENT_VALUE_MAX];
        const char *form = WHO "NVML event {event}";
        if (event_field(l, "class", v, sizeof(v)))
                form = WHO "Xid {xid}: {meaning}. Action: {action}.";
        else if (event_field(l, "xid", v, sizeof(v)))
                form = WHO "Xid {xid} ({meaning})";
        else if (event_field(l, "event", v, sizeof(v)) && !strcmp(v, "GpuUnavailable"))
                form = WHO "the GPU became unavailable";
        else if (event_field(l, "recovery_action", v, sizeof(v)))
                form = WHO "the driver's recovery action is now {recovery_action}";
        render(l, form, form + strlen(form), out);
}

const char *event_component_name(enum event_component c)
{
        static const char *const names[EC_COUNT] = {
            [EC_NONE] = "none",
            [EC_GPU_MEMORY] = "gpu.memory",
            [EC_GPU_PCIE] = "gpu.pcie",
            [EC_GPU_NVLINK] = "gpu.nvlink",
            [EC_GPU_FABRIC] = "gpu.fabric",
            [EC_GPU_THERMAL] = "gpu.thermal",
            [EC_GPU_POWER] = "gpu.power",
            [EC_GPU_DRIVER] = "gpu.driver",
            [EC_HOST_MEMORY] = "host.memory",
            [EC_HOST_STORAGE] = "host.storage",
            [EC_HOST_KERNEL] = "host.kernel",
            [EC_PI_POWER] = "pi.power",
            [EC_PI_THERMAL] = "pi.thermal",
            [EC_PI_STORAGE] = "pi.storage",
            [EC_PI_DISPLAY] = "pi.display",
            [EC_PI_NETWORK] = "pi.network",
            [EC_PI_PLAYER] = "pi.player",
        };
        return (unsigned)c < EC_COUNT && names[c] ? names[c] : "?";
}

const char *event_action_text(enum event_action a)
{
        static const char *const names[EA_COUNT] = {
            [EA_NONE] = "none",
            [EA_RESTART_WORKLOAD] = "restart the workload",
            [EA_RESET_GPU] = "reset the GPU",
            [EA_REBOOT] = "reboot the machine",
            [EA_INSPECT_HARDWARE] = "inspect the hardware",
            [EA_REPLACE_PART] = "replace the part",
            [EA_FROM_EVENT] = "from the event",
        };
        return (unsigned)a < EA_COUNT && names[a] ? names[a] : "?";
}
