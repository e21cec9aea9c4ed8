/* SPDX-License-Identifier: Apache-2.0 */
/* The retry gate. See retry.h. */
#include "util/retry.h"
#include "util/hot.h"

VIGIL_HOT bool retry_due(struct retry_gate *g, int64_t mono_ns, int64_t interval_ns)
{
        if (!g->armed) {
                g->armed = true;
                g->next_ns = mono_ns + interval_ns;
                return false;
        }
        if (mono_ns < g->next_ns)
                return false;
        g->next_ns = mono_ns + interval_ns;
        return true;
}
