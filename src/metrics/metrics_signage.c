/* SPDX-License-Identifier: Apache-2.0 */
/* /metrics: the families of a signage player's screens and network (collect/display.c,
 * collect/net.c):
 *   vigil_display_connected{connector="HDMI-A-1",card="card1"} 1
 *   vigil_display_enabled{...}, vigil_display_dpms{...} (0 On .. 3 Off),
 *   vigil_display_monitor_info{...,monitor="DELL P2419H",serial="...",edid="DEL-A0F3"} 1
 *   vigil_display_cec_power_status 1
 *   vigil_network_up{interface="wlan0"} 1, vigil_network_carrier{...},
 *   vigil_network_carrier_changes_total{...}, vigil_network_wifi_signal_dbm{...},
 *   vigil_network_wifi_link_quality{...}, vigil_network_default_route,
 *   vigil_network_push_reachable
 * The families, their names and help are the metric slots of core/display_values.c and
 * core/net_values.c; this file makes the per-object label lists. */
#include <stddef.h>

#include "core/frame_fields.h"
#include "metrics/metrics.h"
#include "metrics/metrics_render.h"

#define LABELS_MAX 160

/* connector="NAME",card="cardN" for each connector found; NULL for the other slots and
 * for a list that did not fit. */
static void display_bases(const struct frame *f, char (*labs)[LABELS_MAX], const char **bases)
{
        const struct display_frame *d = &f->display;
        for (unsigned i = 0; i < VIGIL_MAX_CONNECTORS; i++) {
                bases[i] = NULL;
                if (i >= d->nconn)
                        continue;
                struct strbuf lb;
                sb_init_fixed(&lb, labs[i], sizeof(labs[i]));
                sb_puts(&lb, "connector=\"");
                metrics_put_label_value(&lb, d->conn[i].name);
                sb_puts(&lb, "\",card=\"");
                metrics_put_label_value(&lb, d->conn[i].card);
                sb_putc(&lb, '"');
                if (!lb.overflow)
                        bases[i] = labs[i];
        }
}

void metrics_display_info(struct render *r, const struct frame *f, const char *const *bases)
{
        for (unsigned i = 0; i < VIGIL_MAX_CONNECTORS; i++) {
                const struct display_conn *c = &f->display.conn[i];
                if (!bases[i] || (!c->monitor[0] && !c->serial[0] && !c->edid_id[0]))
                        continue;
                char lab[LABELS_MAX * 3];
                struct strbuf lb;
                sb_init_fixed(&lb, lab, sizeof(lab));
                sb_puts(&lb, bases[i]);
                sb_puts(&lb, ",monitor=\"");
                metrics_put_label_value(&lb, c->monitor);
                sb_puts(&lb, "\",serial=\"");
                metrics_put_label_value(&lb, c->serial);
                sb_putc(&lb, '"');
                if (!lb.overflow)
                        metrics_sample(r, lab, "edid", c->edid_id, 1);
        }
}

void metrics_render_display(struct render *r, const struct frame *f)
{
        char labs[VIGIL_MAX_CONNECTORS][LABELS_MAX];
        const char *bases[VIGIL_MAX_CONNECTORS];
        display_bases(f, labs, bases);
        metrics_render_table(r, f, display_conn_fields, display_conn_fields_count, f->display.conn,
                             sizeof(f->display.conn[0]), VIGIL_MAX_CONNECTORS, bases);
        metrics_render_table(r, f, display_fields, display_fields_count, &f->display, 0, 1, NULL);
}

void metrics_render_net(struct render *r, const struct frame *f)
{
        char labs[VIGIL_MAX_NETIFS][LABELS_MAX];
        const char *bases[VIGIL_MAX_NETIFS];
        const struct net_frame *n = &f->net;
        for (unsigned i = 0; i < VIGIL_MAX_NETIFS; i++) {
                bases[i] = NULL;
                if (i >= n->nif)
                        continue;
                struct strbuf lb;
                sb_init_fixed(&lb, labs[i], sizeof(labs[i]));
                sb_puts(&lb, "interface=\"");
                metrics_put_label_value(&lb, n->ifs[i].name);
                sb_putc(&lb, '"');
                if (!lb.overflow)
                        bases[i] = labs[i];
        }
        metrics_render_table(r, f, net_if_fields, net_if_fields_count, n->ifs, sizeof(n->ifs[0]),
                             VIGIL_MAX_NETIFS, bases);
        metrics_render_table(r, f, net_fields, net_fields_count, n, 0, 1, NULL);
}
