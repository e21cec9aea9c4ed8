/* SPDX-License-Identifier: Apache-2.0 */
/* The run state file. See runstate.h.
 *   boot_id=5c1f1a8e-7a43-4d8e-9f55-0e2b1d7f6a10 */
#include "core/runstate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/fmt.h"
#include "util/parse.h"
#include "util/pfile.h"

static const char *const end_names[RUNSTATE_END_COUNT] = {"first", "clean", "killed", "reboot",
                                                          "unknown"};
static const char *const end_texts[RUNSTATE_END_COUNT] = {
    "no earlier run recorded",
    "stopped cleanly",
    "vigil was killed or crashed (same boot)",
    "the machine rebooted or lost power under vigil (another boot)",
    "vigil ended uncleanly (boot id unknown: killed, or the machine rebooted)",
};

const char *runstate_end_name(enum runstate_end end)
{
        return (unsigned)end < RUNSTATE_END_COUNT ? end_names[end] : "unknown";
}

const char *runstate_end_text(enum runstate_end end)
{
        return (unsigned)end < RUNSTATE_END_COUNT ? end_texts[end] : end_texts[RUNSTATE_UNKNOWN];
}

bool runstate_end_unclean(enum runstate_end end)
{
        return end == RUNSTATE_KILLED || end == RUNSTATE_REBOOT || end == RUNSTATE_UNKNOWN;
}

void runstate_finding(const struct postmortem_info *pm, struct strbuf *out)
{
        char ts[48];
        if (!pm)
                return;
        sb_printf(out, "previous run: %s", runstate_end_text(pm->kind));
        if (pm->quiet_ns > 0) {
                fmt_time_iso_ms(ts, sizeof(ts), pm->quiet_ns);
                sb_printf(out, " (quiet since %s)", ts);
        }
        sb_printf(out, "; post-mortem: %s", pm->path[0] ? pm->path : pm->rel);
        if (pm->cause[0])
                sb_printf(out, "; cause: %s", pm->cause_text[0] ? pm->cause_text : pm->cause);
}

/* A boot id as the kernel writes it: 36 characters, hex digits and dashes. */
static bool boot_id_ok(const char *s, size_t n)
{
        if (n != 36)
                return false;
        for (size_t i = 0; i < n; i++) {
                bool dash = i == 8 || i == 13 || i == 18 || i == 23;
                if (dash ? s[i] != '-' : parse_hex_digit(s[i]) < 0)
                        return false;
        }
        return true;
}

static void copy_lower(char *out, size_t cap, const char *s, size_t n)
{
        size_t k = copy_bounded(out, cap, s, n);
        for (size_t i = 0; i < k; i++)
                if (out[i] >= 'A' && out[i] <= 'F')
                        out[i] = (char)(out[i] - 'A' + 'a');
}

/* gpu_bus=0000:01:00.0,...: the devices into st (at most RUNSTATE_MAX_BUS; a bad
 * entry is left out). False when none is good. */
static bool parse_bus(struct runstate *st, const char *v, size_t vlen)
{
        char one[32];
        while (vlen) {
                const char *comma = memchr(v, ',', vlen);
                size_t k = comma ? (size_t)(comma - v) : vlen;
                copy_bounded(one, sizeof(one), v, k);
                if (st->nbus < RUNSTATE_MAX_BUS &&
                    aer_bdf_from_bus_id(one, st->gpu_bus[st->nbus], AER_BDF_LEN) == 0)
                        st->nbus++;
                v += comma ? k + 1 : k;
                vlen -= comma ? k + 1 : k;
        }
        return st->nbus > 0;
}

/* A printable value into out (cap bytes); false when it is not one. */
static bool copy_token(char *out, size_t cap, const char *v, size_t vlen)
{
        if (!vlen || vlen >= cap)
                return false;
        for (size_t i = 0; i < vlen; i++)
                if (v[i] < ' ' || v[i] > '~')
                        return false;
        memcpy(out, v, vlen);
        out[vlen] = '\0';
        return true;
}

/* One "key=value" line into st; false when the key is unknown or the value bad. */
static bool parse_kv(struct runstate *st, const char *key, size_t klen, const char *v, size_t vlen)
{
        static const char *const counts[] = {"unclean_killed", "unclean_reboot", "unclean_unknown"};
        uint64_t u;
        int64_t i;
        if (klen == 7 && !memcmp(key, "boot_id", 7)) {
                if (!boot_id_ok(v, vlen))
                        return false;
                copy_lower(st->boot_id, sizeof(st->boot_id), v, vlen);
                return true;
        }
        if (klen == 7 && !memcmp(key, "gpu_bus", 7))
                return parse_bus(st, v, vlen);
        if (klen == 10 && !memcmp(key, "machine_id", 10))
                return copy_token(st->machine_id, sizeof(st->machine_id), v, vlen);
        if (klen == 11 && !memcmp(key, "hardware_id", 11))
                return copy_token(st->hardware_id, sizeof(st->hardware_id), v, vlen);
        if (klen == 4 && !memcmp(key, "gpus", 4)) {
                if (parse_u64(v, vlen, &u) < 0 || u > RUNSTATE_MAX_GPUS)
                        return false;
                st->gpus = (unsigned)u;
                st->gpus_known = true;
                return true;
        }
        for (unsigned k = 0; k < 3; k++) {
                if (klen != strlen(counts[k]) || memcmp(key, counts[k], klen))
                        continue;
                if (parse_u64(v, vlen, &u) < 0)
                        return false;
                st->unclean[RUNSTATE_KILLED + k] = u;
                return true;
        }
        if (parse_i64(v, vlen, &i) < 0 || i < 0)
                return false;
        if (klen == 3 && !memcmp(key, "pid", 3))
                st->pid = i;
        else if (klen == 10 && !memcmp(key, "started_ns", 10))
                st->started_ns = i;
        else if (klen == 10 && !memcmp(key, "stopped_ns", 10))
                st->stopped_ns = i;
        else if (klen == 15 && !memcmp(key, "last_unclean_ns", 15))
                st->last_unclean_ns = i;
        else
                return false;
        return true;
}

int runstate_parse(const char *s, size_t n, struct runstate *ret)
{
        struct runstate st;
        struct cursor c = cur_make(s, n > RUNSTATE_MAX_BYTES ? RUNSTATE_MAX_BYTES : n);
        unsigned known = 0;
        memset(&st, 0, sizeof(st));
        while (!cur_eof(&c)) {
                const char *line, *eq;
                size_t len;
                cur_line(&c, &line, &len);
                while (len && (line[len - 1] == ' ' || line[len - 1] == '\r'))
                        len--;
                if (!len || line[0] == '#' || !(eq = memchr(line, '=', len)))
                        continue;
                size_t klen = (size_t)(eq - line);
                if (parse_kv(&st, line, klen, eq + 1, len - klen - 1))
                        known++;
        }
        if (!known)
                return -EINVAL;
        *ret = st;
        return 0;
}

void runstate_format(const struct runstate *st, struct strbuf *out)
{
        sb_puts(out, "# vigil run state: written at start, and with stopped_ns at a clean stop\n");
        if (st->boot_id[0])
                sb_printf(out, "boot_id=%s\n", st->boot_id);
        sb_printf(out, "pid=%lld\nstarted_ns=%lld\n", (long long)st->pid,
                  (long long)st->started_ns);
        if (st->stopped_ns > 0)
                sb_printf(out, "stopped_ns=%lld\n", (long long)st->stopped_ns);
        sb_printf(out, "unclean_killed=%llu\nunclean_reboot=%llu\nunclean_unknown=%llu\n",
                  (unsigned long long)st->unclean[RUNSTATE_KILLED],
                  (unsigned long long)st->unclean[RUNSTATE_REBOOT],
                  (unsigned long long)st->unclean[RUNSTATE_UNKNOWN]);
        if (st->last_unclean_ns > 0)
                sb_printf(out, "last_unclean_ns=%lld\n", (long long)st->last_unclean_ns);
        if (st->gpus_known)
                sb_printf(out, "gpus=%u\n", st->gpus);
        for (unsigned i = 0; i < st->nbus && i < RUNSTATE_MAX_BUS; i++)
                sb_printf(out, "%s%s", i ? "," : "gpu_bus=", st->gpu_bus[i]);
        if (st->nbus)
                sb_putc(out, '\n');
        if (st->machine_id[0])
                sb_printf(out, "machine_id=%s\n", st->machine_id);
        if (st->hardware_id[0])
                sb_printf(out, "hardware_id=%s\n", st->hardware_id);
}

bool runstate_cloned(const struct runstate *prev, const char *machine_id, const char *hardware_id)
{
        return prev && prev->machine_id[0] && prev->hardware_id[0] && machine_id[0] &&
               hardware_id[0] && !strcmp(prev->machine_id, machine_id) &&
               strcmp(prev->hardware_id, hardware_id) != 0;
}

enum runstate_end runstate_classify(const struct runstate *prev, const char *boot_id_now)
{
        if (!prev)
                return RUNSTATE_FIRST;
        if (prev->stopped_ns > 0)
                return RUNSTATE_CLEAN;
        if (!prev->boot_id[0] || !boot_id_now || !boot_id_now[0])
                return RUNSTATE_UNKNOWN;
        return strcmp(prev->boot_id, boot_id_now) ? RUNSTATE_REBOOT : RUNSTATE_KILLED;
}

int runstate_load(const char *dir, struct runstate *ret)
{
        char buf[RUNSTATE_MAX_BYTES + 1];
        int n = read_file_at(dir, "/" RUNSTATE_FILE, buf, sizeof(buf));
        if (n < 0)
                return n;
        return runstate_parse(buf, (size_t)n, ret);
}

int runstate_save(const char *dir, const struct runstate *st)
{
        char text[RUNSTATE_MAX_BYTES];
        struct strbuf sb;
        sb_init_fixed(&sb, text, sizeof(text));
        runstate_format(st, &sb);
        if (sb.overflow)
                return -ENOSPC;
        return write_file_atomic(dir, RUNSTATE_FILE, sb.buf, sb.len);
}

int runstate_boot_id(const char *root, char *out, size_t cap)
{
        char buf[128];
        if (cap)
                out[0] = '\0';
        int n = read_line_at(root, RUNSTATE_BOOT_ID, buf, sizeof(buf));
        if (n < 0)
                return n;
        if (cap < 37 || !boot_id_ok(buf, (size_t)n))
                return -EINVAL;
        copy_lower(out, cap, buf, (size_t)n);
        return 0;
}
