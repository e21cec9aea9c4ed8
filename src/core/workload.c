/* SPDX-License-Identifier: Apache-2.0 */
/* A process's workload from its cgroup path. See workload.h. */
#include "core/workload.h"

#include <string.h>

#include "util/parse.h"

#define MAX_PARTS 32

/* The path's components (pointers into it, lengths); at most MAX_PARTS. */
struct parts {
        const char *s[MAX_PARTS];
        size_t n[MAX_PARTS];
        size_t count;
};

static void split(const char *p, size_t n, struct parts *ret)
{
        ret->count = 0;
        size_t i = 0;
        while (i < n && ret->count < MAX_PARTS) {
                while (i < n && p[i] == '/')
                        i++;
                size_t start = i;
                while (i < n && p[i] != '/')
                        i++;
                if (i > start) {
                        ret->s[ret->count] = p + start;
                        ret->n[ret->count++] = i - start;
                }
        }
}

static bool starts(const char *s, size_t n, const char *prefix)
{
        size_t k = strlen(prefix);
        return n >= k && !memcmp(s, prefix, k);
}

static bool ends(const char *s, size_t n, const char *suffix)
{
        size_t k = strlen(suffix);
        return n >= k && !memcmp(s + n - k, suffix, k);
}

/* A pod UID as the cgroup path spells it (36 characters of hex digits and '-', or '_'
 * for '-' in a systemd slice name) into out, with '-'. */
static bool take_uid(const char *s, size_t n, char out[40])
{
        if (n != 36)
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                if (!hex && c != '-' && c != '_')
                        return false;
                out[i] = c == '_' ? '-' : c;
        }
        out[n] = '\0';
        return true;
}

/* A container's id from the component after the pod's: "cri-containerd-<ID>.scope",
 * "crio-<ID>.scope", "docker-<ID>.scope" or a bare id (cgroupfs); its first 12
 * characters, as `crictl ps` shows them. */
static void take_container(const char *s, size_t n, char out[24])
{
        static const char *const prefixes[] = {"cri-containerd-", "crio-", "docker-"};
        if (ends(s, n, ".scope")) {
                n -= strlen(".scope");
                for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
                        if (starts(s, n, prefixes[i])) {
                                s += strlen(prefixes[i]);
                                n -= strlen(prefixes[i]);
                                break;
                        }
        }
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
                        return;
        }
        copy_bounded(out, 24, s, n < 12 ? n : 12);
}

/* A Kubernetes pod: the component that names it, after a kubepods one. */
static bool as_pod(const struct parts *p, struct workload *w)
{
        bool under = false;
        for (size_t i = 0; i < p->count; i++) {
                const char *s = p->s[i];
                size_t n = p->n[i];
                if (starts(s, n, "kubepods")) {
                        under = true;
                        /* systemd: kubepods[-QOS]-pod<UID>.slice */
                        const char *pod = memmem(s, n, "-pod", 4);
                        if (!pod || !ends(s, n, ".slice"))
                                continue;
                        pod += 4;
                        if (!take_uid(pod, (size_t)(s + n - strlen(".slice") - pod), w->id))
                                continue;
                } else if (under && starts(s, n, "pod")) {
                        if (!take_uid(s + 3, n - 3, w->id)) /* cgroupfs: pod<UID> */
                                continue;
                } else {
                        continue;
                }
                w->kind = WL_POD;
                if (i + 1 < p->count)
                        take_container(p->s[i + 1], p->n[i + 1], w->sub);
                return true;
        }
        return false;
}

/* A Slurm step: job_<N> under a slurm or slurmstepd.scope component, then step_<S>. */
static bool as_slurm(const struct parts *p, struct workload *w)
{
        bool under = false;
        for (size_t i = 0; i < p->count; i++) {
                const char *s = p->s[i];
                size_t n = p->n[i];
                if ((n == 5 && starts(s, n, "slurm")) || starts(s, n, "slurm_") ||
                    (n == 16 && starts(s, n, "slurmstepd.scope"))) {
                        under = true;
                        continue;
                }
                if (!under || !starts(s, n, "job_") || n == 4 || n - 4 >= sizeof(w->id))
                        continue;
                uint64_t job;
                if (parse_u64(s + 4, n - 4, &job) < 0)
                        continue;
                w->kind = WL_SLURM;
                copy_bounded(w->id, sizeof(w->id), s + 4, n - 4);
                if (i + 1 < p->count && starts(p->s[i + 1], p->n[i + 1], "step_"))
                        copy_bounded(w->sub, sizeof(w->sub), p->s[i + 1] + 5, p->n[i + 1] - 5);
                return true;
        }
        return false;
}

/* A systemd unit: the innermost service, or scope that is no container's. */
static bool as_unit(const struct parts *p, struct workload *w)
{
        for (size_t i = p->count; i-- > 0;) {
                const char *s = p->s[i];
                size_t n = p->n[i];
                bool scope = ends(s, n, ".scope") && !starts(s, n, "cri-") &&
                             !starts(s, n, "crio-") && !starts(s, n, "docker-");
                if (!ends(s, n, ".service") && !scope)
                        continue;
                w->kind = WL_UNIT;
                copy_bounded(w->name, sizeof(w->name), s, n);
                return true;
        }
        return false;
}

/* The workload of one cgroup path; its kind (WL_NONE: nothing recognised). */
static enum workload_kind classify(const char *path, size_t n, struct workload *w)
{
        struct parts p;
        memset(w, 0, sizeof(*w));
        split(path, n, &p);
        if (as_pod(&p, w) || as_slurm(&p, w) || as_unit(&p, w))
                return (enum workload_kind)w->kind;
        memset(w, 0, sizeof(*w));
        return WL_NONE;
}

void workload_from_cgroup(const char *text, size_t n, struct workload *ret)
{
        struct workload best, w;
        memset(&best, 0, sizeof(best));
        /* Pass 0: the cgroup v2 line ("0::PATH"); pass 1: the v1 hierarchies. A pod or
         * a job decides at once; a unit only when nothing better comes. */
        for (int pass = 0; pass < 2; pass++) {
                size_t i = 0;
                while (i < n) {
                        size_t end = i;
                        while (end < n && text[end] != '\n')
                                end++;
                        const char *line = text + i;
                        size_t len = end - i;
                        i = end + 1;
                        const char *c1 = memchr(line, ':', len);
                        const char *c2 =
                            c1 ? memchr(c1 + 1, ':', (size_t)(line + len - c1 - 1)) : NULL;
                        if (!c2)
                                continue;
                        bool v2 = c1 - line == 1 && line[0] == '0' && c2 == c1 + 1;
                        if (v2 != (pass == 0))
                                continue;
                        enum workload_kind k = classify(c2 + 1, (size_t)(line + len - c2 - 1), &w);
                        if (k == WL_POD || k == WL_SLURM) {
                                *ret = w;
                                return;
                        }
                        if (k == WL_UNIT && best.kind == WL_NONE)
                                best = w;
                }
        }
        *ret = best;
}

bool workload_pod_dir_matches(struct workload *w, const char *dir_name)
{
        size_t n = strlen(dir_name), u = strlen(w->id);
        if (w->kind != WL_POD || u == 0 || n < u + 4 || dir_name[n - u - 1] != '_' ||
            memcmp(dir_name + n - u, w->id, u))
                return false;
        const char *sep = memchr(dir_name, '_', n - u - 1);
        if (!sep || sep == dir_name || sep + 1 == dir_name + n - u - 1)
                return false;
        size_t ns = (size_t)(sep - dir_name), name = (size_t)(dir_name + n - u - 1 - sep - 1);
        if (ns + 1 + name >= sizeof(w->name))
                return false;
        memcpy(w->name, dir_name, ns);
        w->name[ns] = '/';
        memcpy(w->name + ns + 1, sep + 1, name);
        w->name[ns + 1 + name] = '\0';
        return true;
}

/* s as one token: what a cgroup path or a directory name may hold besides letters,
 * digits and . _ @ / - is written as '_'. */
static void put_token(struct strbuf *sb, const char *s)
{
        for (; *s; s++) {
                char c = *s;
                bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                             (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '@' ||
                             c == '/' || c == '-';
                sb_putc(sb, plain ? c : '_');
        }
}

void workload_format(struct strbuf *sb, const struct workload *w)
{
        switch (w->kind) {
        case WL_POD:
                sb_puts(sb, "pod:");
                put_token(sb, w->name);
                sb_putc(sb, ':');
                put_token(sb, w->id);
                sb_putc(sb, ':');
                put_token(sb, w->sub);
                break;
        case WL_SLURM:
                sb_puts(sb, "slurm:");
                put_token(sb, w->id);
                if (w->sub[0]) {
                        sb_putc(sb, '.');
                        put_token(sb, w->sub);
                }
                break;
        case WL_UNIT:
                sb_puts(sb, "unit:");
                put_token(sb, w->name);
                break;
        default:
                sb_putc(sb, '-');
                break;
        }
}
