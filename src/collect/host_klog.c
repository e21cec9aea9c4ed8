/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel's lines about processes it ends. See host_klog.h for the formats. */
#include "collect/host_klog.h"

#include <errno.h>
#include <string.h>

#include "util/parse.h"

#define COMM_KERNEL_MAX 15 /* TASK_COMM_LEN - 1 */

/* The first occurrence of lit in [p, end), or NULL. */
static const char *find(const char *p, const char *end, const char *lit)
{
        size_t n = strlen(lit);
        for (; p && p + n <= end; p++)
                if (*p == lit[0] && !memcmp(p, lit, n))
                        return p;
        return NULL;
}

/* The last occurrence of lit in [p, end), or NULL. */
static const char *find_last(const char *p, const char *end, const char *lit)
{
        const char *last = NULL, *q = p;
        while ((q = find(q, end, lit))) {
                last = q;
                q++;
        }
        return last;
}

/* A decimal pid at [p, end) ending at stop (exclusive); -1 when not one. */
static int32_t pid_at(const char *p, const char *stop)
{
        uint64_t v;
        if (p >= stop || *p < '0' || *p > '9' || parse_u64(p, (size_t)(stop - p), &v) < 0 ||
            v > INT32_MAX)
                return -1;
        for (const char *q = p; q < stop; q++)
                if (*q < '0' || *q > '9')
                        return -1;
        return (int32_t)v;
}

/* "KEYnnnkB" after key in [p, end): nnn, or -1. */
static int64_t kb_after(const char *p, const char *end, const char *key)
{
        const char *k = find(p, end, key);
        if (!k)
                return -1;
        struct cursor c = cur_make(k + strlen(key), (size_t)(end - k - strlen(key)));
        uint64_t v;
        if (cur_u64(&c, &v) < 0 || !cur_lit(&c, "kB") || v > INT64_MAX / 4)
                return -1;
        return (int64_t)v;
}

/* "Out of memory: Killed process 1234 (chromium) total-vm:...". */
static int parse_oom_kill(const char *s, const char *end, struct host_klog_line *out)
{
        const char *k = find(s, end, "Killed process ");
        if (!k)
                return -ENOENT;
        if (k != s) {
                /* The message before it: "Out of memory", "Memory cgroup out of memory",
                 * "Out of memory (oom_kill_allocating_task)". */
                const char *m = find(s, k, "ut of memory");
                if (!m || m == s || k - s < 2 || k[-2] != ':' || k[-1] != ' ')
                        return -ENOENT;
                out->memcg = !strncmp(s, "Memory cgroup", 13);
        }
        const char *p = k + strlen("Killed process ");
        const char *open = find(p, end, " (");
        const char *close = open ? find(open + 2, end, ") total-vm:") : NULL;
        if (!close || (out->pid = pid_at(p, open)) < 0 || close == open + 2)
                return -ENOENT;
        copy_bounded(out->comm, sizeof(out->comm), open + 2, (size_t)(close - open - 2));
        int64_t anon = kb_after(close, end, "anon-rss:"), file = kb_after(close, end, "file-rss:");
        int64_t shmem = kb_after(close, end, "shmem-rss:"); /* since 4.6 */
        out->rss_kb = anon < 0 || file < 0 ? -1 : anon + file + (shmem > 0 ? shmem : 0);
        out->kind = HKLOG_OOM_KILL;
        copy_bounded(out->what, sizeof(out->what), "out of memory", 13);
        return 0;
}

/* "oom-kill:constraint=...,task_memcg=/x,task=chromium,pid=1234,uid=1000". */
static int parse_oom_summary(const char *s, const char *end, struct host_klog_line *out)
{
        static const char head[] = "oom-kill:constraint=";
        if ((size_t)(end - s) < sizeof(head) - 1 || memcmp(s, head, sizeof(head) - 1))
                return -ENOENT;
        const char *pid = find_last(s, end, ",pid=");
        const char *uid = pid ? find(pid, end, ",uid=") : NULL;
        const char *task = pid ? find_last(s, pid, ",task=") : NULL;
        if (!uid || !task || (out->pid = pid_at(pid + 5, uid)) < 0)
                return -ENOENT;
        copy_bounded(out->comm, sizeof(out->comm), task + 6, (size_t)(pid - task - 6));
        const char *v = s + sizeof(head) - 1;
        const char *comma = find(v, end, ",");
        out->memcg = comma && (size_t)(comma - v) == 16 && !memcmp(v, "CONSTRAINT_MEMCG", 16);
        const char *cg = find(s, task, ",task_memcg=");
        out->cgroup[0] = '\0';
        if (cg)
                copy_bounded(out->cgroup, sizeof(out->cgroup), cg + 12, (size_t)(task - cg - 12));
        out->rss_kb = -1;
        out->kind = HKLOG_OOM_SUMMARY;
        copy_bounded(out->what, sizeof(out->what), "out of memory", 13);
        return 0;
}

/* What follows "COMM[PID]" at p: the kind and its description into out->what. */
static int fault_after(const char *p, const char *end, bool traps, struct host_klog_line *out)
{
        const char *what, *stop;
        if (!traps && find(p, end, ": segfault at ") == p) {
                out->kind = HKLOG_SEGFAULT;
                copy_bounded(out->what, sizeof(out->what), "segfault", 8);
                return 0;
        }
        if (!traps && find(p, end, ": unhandled ") == p) {
                /* 4.19+: "unhandled exception: [CLASS, ESR 0x..., ]NAME in ..."; before,
                 * "unhandled level 2 translation fault (11) at 0x..., esr 0x...". */
                what = p + strlen(": unhandled ");
                if (find(what, end, "exception: ") == what) {
                        what += strlen("exception: ");
                        const char *esr = find(what, end, ", ESR ");
                        const char *after = esr ? find(esr + 6, end, ", ") : NULL;
                        if (after)
                                what = after + 2;
                }
                stop = find(what, end, " in ");
                const char *paren = find(what, end, " (");
                if (paren && (!stop || paren < stop))
                        stop = paren;
                out->kind = HKLOG_UNHANDLED;
        } else if (traps && p < end && *p == ' ') {
                what = p + 1;
                stop = find(what, end, " ip:");
                if (!stop)
                        return -ENOENT;
                out->kind = HKLOG_TRAP;
        } else {
                return -ENOENT;
        }
        copy_bounded(out->what, sizeof(out->what), what, (size_t)((stop ? stop : end) - what));
        return 0;
}

/* "COMM[PID]: segfault at ...", "traps: COMM[PID] general protection fault ...",
 * "COMM[PID]: unhandled exception: ...". */
static int parse_fault(const char *s, const char *end, struct host_klog_line *out)
{
        bool traps = find(s, end, "traps: ") == s;
        const char *comm = traps ? s + 7 : s;
        for (const char *b = comm + 1; b < end && b <= comm + COMM_KERNEL_MAX; b++) {
                if (*b != '[')
                        continue;
                const char *close = find(b, end, "]");
                struct host_klog_line l = *out;
                if (!close || (l.pid = pid_at(b + 1, close)) < 0)
                        continue;
                if (fault_after(close + 1, end, traps, &l) < 0)
                        continue;
                copy_bounded(l.comm, sizeof(l.comm), comm, (size_t)(b - comm));
                l.rss_kb = -1;
                *out = l;
                return 0;
        }
        return -ENOENT;
}

int host_klog_parse(const char *text, size_t len, struct host_klog_line *ret)
{
        const char *end = text + len;
        struct host_klog_line l;
        memset(&l, 0, sizeof(l));
        if (parse_oom_summary(text, end, &l) == 0 || parse_oom_kill(text, end, &l) == 0 ||
            parse_fault(text, end, &l) == 0) {
                *ret = l;
                return 0;
        }
        return -ENOENT;
}

const char *host_klog_kind_name(enum host_klog_kind k)
{
        static const char *const names[HKLOG_KIND_COUNT] = {
            [HKLOG_OOM_KILL] = "oom_kill",   [HKLOG_OOM_SUMMARY] = "oom_summary",
            [HKLOG_SEGFAULT] = "segfault",   [HKLOG_TRAP] = "trap",
            [HKLOG_UNHANDLED] = "unhandled",
        };
        return (unsigned)k < HKLOG_KIND_COUNT ? names[k] : "?";
}
