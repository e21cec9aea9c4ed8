/* SPDX-License-Identifier: Apache-2.0 */
/* The simulated NVML's fields: the names scenarios give them, and the range of each. */
#include "sim.h"

#include <stdio.h>
#include <string.h>

static const char *const scalar_names[F_THR0] = {
    "temp",        "power_mw",        "limit_mw",       "enforced_mw",
    "energy_mj",   "pstate",          "clk_gfx",        "clk_sm",
    "clk_mem",     "clk_video",       "util_gpu",       "util_mem",
    "vram_total",  "vram_used",       "vram_reserved",  "pcie_gen",
    "pcie_width",  "replay",          "reasons",        "events",
    "ecc_sbe_vol", "ecc_dbe_vol",     "ecc_sbe_agg",    "ecc_dbe_agg",
    "rows_corr",   "rows_unc",        "rows_pending",   "rows_failure",
    "sensors",     "recovery_action", "register",       "ecc_mode",
    "ecc_pending", "retired_sbe",     "retired_dbe",    "retired_pending",
    "persistence", "pcie_max_gen",    "pcie_max_width",
};
static const char *const thr_names[NVML_TEMPERATURE_THRESHOLD_COUNT] = {
    "thr_shutdown",     "thr_slowdown",      "thr_mem_max",      "thr_gpu_max",
    "thr_acoustic_min", "thr_acoustic_curr", "thr_acoustic_max",
};
static const char *const sensor_names[5] = {"ctrl", "min", "max", "temp", "target"};
static const char *const nvl_names[SIM_NVL_FIELDS] = {
    "state",      "crc_flit", "crc_data",   "replay", "recovery",
    "rec_events", "rec_ok",   "rec_failed", "symbol", "effective",
};
static const char *const fabric_names[4] = {"fabric_state", "fabric_status", "fabric_clique",
                                            "fabric_health"};

void sim_field_name(int f, char *buf, size_t n)
{
        if (f < F_THR0)
                snprintf(buf, n, "%s", scalar_names[f]);
        else if (f < F_S0)
                snprintf(buf, n, "%s", thr_names[f - F_THR0]);
        else if (f < F_FAN0)
                snprintf(buf, n, "s%d_%s", (f - F_S0) / 5, sensor_names[(f - F_S0) % 5]);
        else if (f < F_TARGET0)
                snprintf(buf, n, "fan%d", f - F_FAN0);
        else if (f < F_POLICY0)
                snprintf(buf, n, "target%d", f - F_TARGET0);
        else if (f < F_NVL0)
                snprintf(buf, n, "policy%d", f - F_POLICY0);
        else if (f < F_FABRIC_STATE)
                snprintf(buf, n, "nvl%d_%s", (f - F_NVL0) / SIM_NVL_FIELDS,
                         nvl_names[(f - F_NVL0) % SIM_NVL_FIELDS]);
        else
                snprintf(buf, n, "%s", fabric_names[f - F_FABRIC_STATE]);
}

enum sim_kind sim_field_kind(int f)
{
        if (f == F_ENERGY || f == F_REASONS || f == F_EVENTS ||
            (f >= F_VRAM_TOTAL && f <= F_VRAM_RESERVED) ||
            (f >= F_ECC_SBE_VOL && f <= F_ECC_DBE_AGG) ||
            (f >= F_NVL0 && f < F_FABRIC_STATE && (f - F_NVL0) % SIM_NVL_FIELDS != NVL_F_STATE))
                return SIM_K_U64;
        if (f == F_FABRIC_STATUS)
                return SIM_K_I32;
        if (f == F_PSTATE || (f >= F_S0 && f < F_FAN0))
                return SIM_K_I32;
        return SIM_K_U32;
}

int sim_field_find(const char *s, size_t n)
{
        char buf[32];
        for (int f = 0; f < F_COUNT; f++) {
                sim_field_name(f, buf, sizeof(buf));
                if (strlen(buf) == n && memcmp(buf, s, n) == 0)
                        return f;
        }
        return -1;
}
