/* SPDX-License-Identifier: Apache-2.0 */
/* The attribute files of one sysfs object (a DRM connector, a network interface) kept
 * open from the scan that found the object, each read with one pread(2) at offset 0 a
 * sample: no path walk, no open or close on the sample path.
 *
 * Why a kept descriptor sees every new value: sysfs serves a text attribute through
 * seq_file, and a read at offset 0 runs the attribute's show() again into a page-sized
 * buffer (fs/sysfs/file.c sysfs_kf_seq_show(); seq_read_iter() starts over when the
 * offset differs from the last read's end), so one read of a buffer larger than the
 * value returns all of it and a short read is the end. A binary attribute (a
 * connector's edid) is read through kernfs_file_read_iter() (fs/kernfs/file.c), at most
 * PAGE_SIZE a call: a buffer of the EDID's bound (1024 bytes, below a page) takes it in
 * one read. The inode stays the attribute's for the life of its kobject.
 *
 * When the object goes away (a USB network adapter pulled, a card unbound), the kernel
 * deactivates its nodes and a read on a kept descriptor fails with ENODEV
 * (kernfs_seq_start() and kernfs_file_read_iter(): kernfs_get_active() fails). Then
 * the file is opened again by its path, once: an object that came back under the same
 * name (a card rebound) is read at once; when the path is gone too, sysfs_obj_read()
 * returns that error and the object is marked gone, for the source to scan again. */
#ifndef VIGIL_COLLECT_SYSFS_OBJ_H
#define VIGIL_COLLECT_SYSFS_OBJ_H

#include <stdbool.h>
#include <stddef.h>

#define SYSFS_OBJ_MAX_FILES 4

struct sysfs_obj {
        const char *root;         /* the --root prefix ("" none); outlives the object */
        char dir[96];             /* the object's directory, "/sys/class/net/wlan0" */
        const char *const *names; /* its attribute files' names, n of them */
        unsigned n;
        int fd[SYSFS_OBJ_MAX_FILES];  /* -1: not open */
        int err[SYSFS_OBJ_MAX_FILES]; /* the last open's -errno, 0 when open */
        unsigned empty;               /* bit per file: its last read was empty */
        bool retry;                   /* a file could not be opened: try once more */
        bool gone;                    /* a read found the object gone */
};

/* Name o (no file opened yet): dir under root, with n (<= SYSFS_OBJ_MAX_FILES) files
 * named names[]. 0, or -ENAMETOOLONG when dir does not fit. */
int sysfs_obj_init(struct sysfs_obj *o, const char *root, const char *dir, const char *const *names,
                   unsigned n);
/* Open every file of o not open yet (O_RDONLY, O_CLOEXEC, O_NONBLOCK). A file that
 * cannot be opened is left closed with its error kept, and o->retry set. Returns how
 * many are open. A source calls it when its scan finds the object (and at each rescan
 * for the files still closed). */
unsigned sysfs_obj_open(struct sysfs_obj *o);
/* When o->retry: open the closed files once more, then clear it. A source calls it at
 * each sample, so a file missing at a scan is tried again at the next sample (a device
 * is listed a moment before its attributes exist: drivers/base/core.c device_add()
 * makes the class link, device_add_class_symlinks(), before device_add_attrs()), then at the next rescan only. */
void sysfs_obj_retry(struct sysfs_obj *o);
/* File i of o: one pread of at most cap-1 bytes at offset 0 into buf (cap >= 2),
 * NUL-terminated. Returns the length (cap-1: the file may be longer), or -errno: the
 * read's, or for a file not open the error of its last open. A read that says the
 * object is gone (ENODEV, ENOENT, ENXIO, ESTALE, ESRCH) opens the file again by path
 * and reads once more; when that open fails, o->gone is set and its error returned. */
int sysfs_obj_read(struct sysfs_obj *o, unsigned i, char *buf, size_t cap);
/* Whether a read of text file i that returned n (its length or -errno) is to be passed
 * over as no value this sample: the first empty read in a row. sysfs never serves a
 * text attribute empty (show() always prints its word); a fixture file rewritten in
 * place can be read between its truncation and its write. A second empty read in a row
 * is not passed over: the caller takes it as the value (and says it is bad). */
bool sysfs_obj_skip_empty(struct sysfs_obj *o, unsigned i, int n);
/* The path of file i (root prefix included) into out, for messages. */
void sysfs_obj_path(const struct sysfs_obj *o, unsigned i, char *out, size_t cap);
/* Close every file; o can be opened again. Accepts a zeroed or closed object. */
void sysfs_obj_close(struct sysfs_obj *o);

#endif
