/* SPDX-License-Identifier: Apache-2.0 */
/* Small config files read whole (--config, --web-config, --remote-write-config): the bounded
 * read, the file name in every error, and the file names a config gives resolved
 * against the config's own directory, as Prometheus resolves them in its web and
 * remote-write configs. The formats themselves are their readers' (push/, web/), over
 * the YAML subset reader (util/conf_yaml.h). */
#ifndef VIGIL_UTIL_CONFFILE_H
#define VIGIL_UTIL_CONFFILE_H

#include <stddef.h>

/* A config reader: parse text[0..len) into cfg; base_dir is the directory relative
 * file names are resolved in ("" for the current one). On failure, writes a message
 * (without the file name) into err[0..cap) and returns -errno. */
typedef int (*conf_parse_fn)(const char *text, size_t len, const char *base_dir, void *cfg,
                             char *err, size_t cap);

/* Read the file at path, a regular file (or a character device, /dev/null) of at most
 * max_bytes, and hand it to parse with cfg and the file's directory. Returns 0, or
 * -errno: the read's (-ENOENT, -EACCES, ...), -EISDIR or -EINVAL for a directory or a
 * FIFO or socket (not waited on), -EFBIG past max_bytes ("larger than N MB" when the bound
 * is whole MB, else N bytes), or parse's. On failure err holds "PATH: what happened". */
int conf_load(const char *path, size_t max_bytes, conf_parse_fn parse, void *cfg, char *err,
              size_t cap);

/* The file name v, given in a config file, as a path: v itself when absolute or when
 * base_dir is NULL or empty, else base_dir/v. 0, or -ENAMETOOLONG when it does not fit
 * in out[0..cap) (out is then unspecified). */
int conf_resolve(char *out, size_t cap, const char *base_dir, const char *v);

#endif
