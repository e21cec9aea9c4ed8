/* SPDX-License-Identifier: Apache-2.0 */
/* The procs source's pid table: one listing of /proc per host tick, merged into a
 * table sorted by pid, and the measurement slots of matching processes.
 *
 *   /proc: 1  2  812  1100  1110  ...  acpi  buddyinfo  ...  (numeric entries are pids)
 *
 * /proc lists pids in ascending order, so the merge with the previous table is one
 * linear pass; a --root fixture may list them in any order and is sorted first. */
#include "collect/procs_table.h"
#include "util/hot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int procs_open_pid_file(const struct procs_state *s, int32_t pid, const char *name)
{
        char rel[48];
        int n = snprintf(rel, sizeof(rel), "%d/%s", (int)pid, name);
        if (n < 0 || (size_t)n >= sizeof(rel))
                return -ENAMETOOLONG;
        int fd = openat(s->proc_fd, rel, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        return fd < 0 ? -errno : fd;
}

int procs_table_open(struct procs_state *s)
{
        int fd = fcntl(s->proc_fd, F_DUPFD_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        s->dir = fdopendir(fd);
        if (!s->dir) {
                int r = -errno;
                close(fd);
                return r;
        }
        return 0;
}

/* A positive decimal pid with nothing else ("812"; not "self", not "0"). */
static bool parse_pid(const char *name, int32_t *ret)
{
        int32_t v = 0;
        if (!*name)
                return false;
        for (; *name; name++) {
                if (*name < '0' || *name > '9' || v > (INT32_MAX - 9) / 10)
                        return false;
                v = v * 10 + (*name - '0');
        }
        if (v <= 0)
                return false;
        *ret = v;
        return true;
}

/* Room for n pids in ents, next and listed. 0 or -ENOMEM (arrays still valid). */
static int reserve(struct procs_state *s, size_t n)
{
        if (n <= s->cap)
                return 0;
        size_t cap = s->cap ? s->cap * 2 : 256;
        while (cap < n)
                cap *= 2;
        if (cap > PROCS_MAX_PIDS)
                cap = PROCS_MAX_PIDS;
        struct proc_entry *e = realloc(s->ents, cap * sizeof(*e));
        if (!e)
                return -ENOMEM;
        s->ents = e;
        e = realloc(s->next, cap * sizeof(*e));
        if (!e)
                return -ENOMEM;
        s->next = e;
        struct proc_listed *l = realloc(s->listed, cap * sizeof(*l));
        if (!l)
                return -ENOMEM;
        s->listed = l;
        s->cap = cap;
        return 0;
}

static int cmp_listed(const void *a, const void *b)
{
        const struct proc_listed *x = a, *y = b;
        return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Sort the listing by pid and drop duplicates (a fixture's listing order is free). */
static void sort_listed(struct procs_state *s)
{
        qsort(s->listed, s->nlisted, sizeof(s->listed[0]), cmp_listed);
        size_t n = 0;
        for (size_t i = 0; i < s->nlisted; i++)
                if (n == 0 || s->listed[n - 1].pid != s->listed[i].pid)
                        s->listed[n++] = s->listed[i];
        s->nlisted = n;
}

static int list_pids(struct procs_state *s)
{
        bool sorted = true;
        s->nlisted = 0;
        s->table_full = false;
        rewinddir(s->dir);
        for (;;) {
                errno = 0;
                struct dirent *de = readdir(s->dir);
                if (!de && errno)
                        return -errno;
                if (!de)
                        break;
                int32_t pid;
                if (!parse_pid(de->d_name, &pid) || pid == s->self_pid)
                        continue;
                if (s->nlisted == PROCS_MAX_PIDS) {
                        s->table_full = true;
                        continue;
                }
                int r = reserve(s, s->nlisted + 1);
                if (r < 0)
                        return r;
                if (s->nlisted && s->listed[s->nlisted - 1].pid >= pid)
                        sorted = false;
                s->listed[s->nlisted].pid = pid;
                s->listed[s->nlisted].ino = de->d_ino;
                s->nlisted++;
        }
        if (!sorted)
                sort_listed(s);
        return 0;
}

static void enter_new(struct proc_entry *e, const struct proc_listed *l, int64_t now_ns)
{
        e->pid = l->pid;
        e->slot = -1;
        e->mask = 0;
        e->flags = PE_CLASSIFY;
        e->ino = l->ino;
        e->first_seen_ns = now_ns;
}

static void drop(struct procs_state *s, struct proc_entry *e)
{
        if (e->slot >= 0)
                procs_slot_release(s, e);
}

/* /proc/PID is a new inode: a new process under a reused pid, or the same process
 * whose dentry the kernel evicted and made again. Classify it again; a measured one
 * keeps its slot with a fresh stat fd, and the starttime check of the next read tells
 * which it was (a new process then starts over). */
static void inode_changed(struct procs_state *s, struct proc_entry *e, const struct proc_listed *l,
                          int64_t now_ns)
{
        e->ino = l->ino;
        e->flags |= PE_CLASSIFY;
        e->first_seen_ns = now_ns;
        if (e->slot >= 0)
                procs_slot_drop_pss(s, &s->slots[e->slot]);
        if (e->slot >= 0 && s->slots[e->slot].fd >= 0) {
                close(s->slots[e->slot].fd);
                int fd = procs_open_pid_file(s, e->pid, "stat");
                s->slots[e->slot].fd = fd >= 0 ? fd : -1;
                if (fd < 0)
                        s->nfds--;
        }
}

/* Merge the sorted listing into the sorted table, through next[]. */
static void merge(struct procs_state *s, int64_t now_ns)
{
        size_t i = 0, n = 0;
        for (size_t k = 0; k < s->nlisted; k++) {
                const struct proc_listed *l = &s->listed[k];
                while (i < s->nents && s->ents[i].pid < l->pid)
                        drop(s, &s->ents[i++]);
                struct proc_entry *e = &s->next[n++];
                if (i < s->nents && s->ents[i].pid == l->pid) {
                        *e = s->ents[i++];
                        if (e->ino != l->ino)
                                inode_changed(s, e, l, now_ns);
                } else {
                        enter_new(e, l, now_ns);
                }
        }
        while (i < s->nents)
                drop(s, &s->ents[i++]);
        struct proc_entry *t = s->ents;
        s->ents = s->next;
        s->next = t;
        s->nents = n;
}

VIGIL_HOT int procs_table_scan(struct procs_state *s, int64_t now_ns)
{
        int r = list_pids(s);
        if (r < 0)
                return r;
        merge(s, now_ns);
        return 0;
}

void procs_table_close(struct procs_state *s)
{
        for (size_t i = 0; i < s->nslots; i++) {
                if (s->slots[i].fd >= 0)
                        close(s->slots[i].fd);
                if (s->slots[i].pss_fd >= 0)
                        close(s->slots[i].pss_fd);
        }
        free(s->slots);
        free(s->ents);
        free(s->next);
        free(s->listed);
        s->slots = NULL;
        s->ents = s->next = NULL;
        s->listed = NULL;
        s->nslots = s->slots_cap = s->nents = s->nlisted = s->cap = 0;
        if (s->dir)
                closedir(s->dir);
        s->dir = NULL;
}

static int grow_slots(struct procs_state *s)
{
        if (s->slots_cap >= PROCS_MAX_MATCHES)
                return -ENOSPC;
        size_t cap = s->slots_cap ? s->slots_cap * 2 : 16;
        if (cap > PROCS_MAX_MATCHES)
                cap = PROCS_MAX_MATCHES;
        struct proc_slot *sl = realloc(s->slots, cap * sizeof(*sl));
        if (!sl)
                return -ENOMEM;
        s->slots = sl;
        s->slots_cap = cap;
        return 0;
}

int32_t procs_slot_acquire(struct procs_state *s, int32_t pid)
{
        int32_t i = s->free_slot;
        if (i >= 0) {
                s->free_slot = s->slots[i].next_free;
        } else {
                if (s->nslots == s->slots_cap && grow_slots(s) < 0)
                        return -1;
                i = (int32_t)s->nslots++;
        }
        struct proc_slot *sl = &s->slots[i];
        memset(sl, 0, sizeof(*sl));
        sl->fd = sl->pss_fd = -1;
        sl->next_free = -1;
        if (s->nfds < PROCS_MAX_FDS) {
                int fd = procs_open_pid_file(s, pid, "stat");
                if (fd >= 0) {
                        sl->fd = fd;
                        s->nfds++;
                }
        }
        return i;
}

void procs_slot_release(struct procs_state *s, struct proc_entry *e)
{
        struct proc_slot *sl = &s->slots[e->slot];
        if (sl->fd >= 0) {
                close(sl->fd);
                s->nfds--;
        }
        sl->fd = -1;
        procs_slot_drop_pss(s, sl);
        sl->next_free = s->free_slot;
        s->free_slot = e->slot;
        e->slot = -1;
}

void procs_slot_drop_pss(struct procs_state *s, struct proc_slot *sl)
{
        if (sl->pss_fd < 0)
                return;
        close(sl->pss_fd);
        sl->pss_fd = -1;
        s->nfds--;
}
