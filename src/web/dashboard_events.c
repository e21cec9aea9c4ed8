/* events.log lines as sentences. See dashboard_events.h. */
#include "web/dashboard_events.h"

#include <stdlib.h>
#include <string.h>

#include "core/findings.h"
#include "detect/xid_catalog.h"

#define V 160

struct line {
        const char *s;
        size_t n;
        char gpu[8];
};

static const char *get(const struct line *l, const char *key, char *buf)
{
        findings_event_field(l->s, l->n, key, buf, V);
        return buf;
}

/* "GPU 0: " when the line names a GPU. */
static void who(const struct line *l, struct strbuf *out)
{
        if (l->gpu[0])
                sb_printf(out, "GPU %s: ", l->gpu);
}

static void nvml_event(const struct line *l, struct strbuf *out)
{
        char a[V], b[V];
        who(l, out);
        if (findings_event_field(l->s, l->n, "xid", a, sizeof(a))) {
                unsigned code = (unsigned)strtoul(a, NULL, 10);
                if (xid_describe(out, code) < 0)
                        sb_printf(out, "Xid %s (" XID_NOT_IN_CATALOG ")", a);
                return;
        }
        get(l, "event", a);
        if (!strcmp(a, "GpuUnavailable"))
                sb_puts(out, "the GPU became unavailable");
        else if (findings_event_field(l->s, l->n, "recovery_action", b, sizeof(b)))
                sb_printf(out, "the driver's recovery action is now %s", b);
        else
                sb_printf(out, "NVML event %s", a);
}

static bool sentence(const struct line *l, const char *type, struct strbuf *out)
{
        char a[V], b[V], c[V];
        if (!strcmp(type, "NVML_EVENT")) {
                nvml_event(l, out);
        } else if (!strcmp(type, "NVML_FAILED")) {
                who(l, out);
                sb_printf(out, "stopped answering (%s)", get(l, "error", a));
        } else if (!strcmp(type, "GPU_RECOVERED")) {
                who(l, out);
                sb_printf(out, "answers again, after %s failed samples", get(l, "failures", a));
        } else if (!strcmp(type, "CRASH_SNAPSHOT")) {
                who(l, out);
                sb_printf(out, "crash snapshot %s (%s)", get(l, "file", a), get(l, "reason", b));
        } else if (!strcmp(type, "SPIKE_SNAPSHOT")) {
                who(l, out);
                sb_printf(out, "fan-spike snapshot %s", get(l, "file", a));
        } else if (!strcmp(type, "TDP_CHANGE") || !strcmp(type, "ENFORCED_LIMIT_CHANGE")) {
                who(l, out);
                sb_printf(out, "%s changed from %s to %s",
                          type[0] == 'T' ? "power limit" : "enforced power limit",
                          get(l, "from", a), get(l, "to", b));
        } else if (!strcmp(type, "THROTTLE")) {
                who(l, out);
                sb_printf(out, "clock-event reasons now %s (were %s)", get(l, "to", a),
                          get(l, "from", b));
        } else if (!strcmp(type, "ANOMALY")) {
                who(l, out);
                sb_printf(out, "anomaly %s", get(l, "flag", a));
        } else if (!strcmp(type, "RPI_THROTTLE")) {
                sb_printf(out, "Pi: %s %s", get(l, "condition", a), get(l, "state", b));
        } else if (!strcmp(type, "TREND")) {
                sb_printf(out, "%s is %s: %s per hour", get(l, "field", a), get(l, "state", b),
                          get(l, "slope_per_h", c));
        } else if (!strcmp(type, "SNAPSHOT_SUPPRESSED")) {
                who(l, out);
                sb_printf(out, "no %s snapshot for event #%s (%s cooldown)", get(l, "kind", a),
                          get(l, "number", b), get(l, "cooldown", c));
                if (findings_event_field(l->s, l->n, "noted_in", a, sizeof(a)))
                        sb_printf(out, "; noted in %s", a);
        } else if (!strcmp(type, "CRASH_FOLLOWUP")) {
                who(l, out);
                sb_printf(out, "crash follow-up %s after the crash: %s", get(l, "delay", a),
                          get(l, "file", b));
        } else if (!strcmp(type, "EVENT_LISTENER")) {
                sb_printf(out, "the NVML event listener failed: %s", get(l, "error", a));
        } else if (!strcmp(type, "RPI_THROTTLE_HISTORY")) {
                sb_printf(out, "Pi since boot: %s", get(l, "since_boot", a));
        } else if (!strcmp(type, "RPI_TEMP")) {
                sb_printf(out, "Pi temperature %s: %s", get(l, "level", a), get(l, "temp", b));
        } else if (!strcmp(type, "SHM")) {
                sb_printf(out, "/dev/shm %s: %s used", get(l, "state", a), get(l, "used", b));
        } else if (!strcmp(type, "INCIDENT") || !strcmp(type, "SNAPSHOT")) {
                sb_printf(out, "%s: %s, snapshot %s", type[0] == 'I' ? "incident" : "snapshot",
                          get(l, "reason", a), get(l, "snapshot", b));
        } else if (!strcmp(type, "DISK_LOW")) {
                sb_printf(out, "disk low (%s MB free): writes paused", get(l, "free_mb", a));
        } else if (!strcmp(type, "DISK_RESUMED")) {
                sb_printf(out, "writes resumed after %s s (%s MB free)", get(l, "paused_s", a),
                          get(l, "free_mb", b));
        } else if (!strcmp(type, "WRITE_RESUMED")) {
                sb_printf(out, "writes work again: %s rows lost (%s)", get(l, "dropped_rows", a),
                          get(l, "error", b));
        } else if (!strcmp(type, "STORAGE")) {
                sb_printf(out, "storage: %s is %s", get(l, "mount", a), get(l, "state", b));
        } else if (!strcmp(type, "STORAGE_ERRORS")) {
                sb_printf(out, "storage errors: %s new (%s in all) %s", get(l, "new", a),
                          get(l, "total", b), get(l, "last", c));
        } else if (!strcmp(type, "STORAGE_FILL")) {
                sb_printf(out, "storage: %s %s, full in %s", get(l, "mount", a), get(l, "state", b),
                          get(l, "full_in", c));
        } else if (!strcmp(type, "START") || !strcmp(type, "STOP")) {
                sb_puts(out, type[2] == 'A' ? "vigil started" : "vigil stopped");
        } else {
                return false;
        }
        return true;
}

void dash_event_sentence(const char *text, struct strbuf *out)
{
        struct line l = {text, strlen(text), ""};
        char type[40];
        findings_event_field(l.s, l.n, "gpu", l.gpu, sizeof(l.gpu));
        if (!findings_event_field(l.s, l.n, "type", type, sizeof(type)) || !sentence(&l, type, out))
                sb_puts(out, text);
}
