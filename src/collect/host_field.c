/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the host sources. See host_field.h. */
#include "collect/host_field.h"

#include <errno.h>

#include "util/attr.h"
#include "util/hot.h"

VIGIL_HOT int host_field_double(struct cursor *c, double *ret)
{
        struct cursor t = *c;
        double v;
        if (cur_double(&t, &v) < 0 || v < 0)
                return -EINVAL;
        if (cur_eof(&t) || (*t.p != ' ' && *t.p != '\t' && *t.p != '\n'))
                return -EINVAL;
        *c = t;
        *ret = v;
        return 0;
}

int host_file_init(struct host_file *hf, const char *root, const char *path, size_t cap)
{
        hf->path = path;
        hf->cap = cap;
        hf->reopen.armed = false;
        int r = pfile_open(&hf->f, root, path, cap);
        return r == -ENOMEM ? r : 0;
}

VIGIL_HOT int host_file_read(struct host_file *hf, const char *root, int64_t mono_ns)
{
        if (!pfile_is_open(&hf->f)) {
                if (!retry_due(&hf->reopen, mono_ns, RETRY_INTERVAL_NS))
                        return -ENOENT;
                int r = pfile_open(&hf->f, root, hf->path, hf->cap);
                if (r < 0)
                        return r;
        }
        return pfile_read_once(&hf->f);
}

void host_file_close(struct host_file *hf)
{
        pfile_close(&hf->f);
}
