#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The health verdict on the screens a person reads, on the simulated NVML: a GPU that
# falls off the bus (Xid 79) and stays lost. `vigil status` of the running daemon and,
# once it has stopped, of the state file it left; `vigil report`; the exit summary (the
# verdict before what happened, which stays last). Each says what `vigil health` says:
# the part, its state and its action.
. "$(dirname "$0")/../lib.sh"

SCEN="$TOP/tests/nvml-sim/scenarios"
need_nvml_sim "health_screens" "$SCEN/xid-79-lost-recovered"
ROOT="$TMP/root"
gpu_server "$ROOT" "$TMP/bin"
grep -v 'step 60' "$SCEN/xid-79-lost-recovered" >"$TMP/lost.scen" # stays lost
LOG="$TMP/log"

PATH="$TMP/bin:$PATH" VIGIL_NVML_SCENARIO="$TMP/lost.scen" "$VIGIL" --nvml "$NVML_SIM" \
	--root "$ROOT" --gpu-interval 0.01 --interval 0.05 --log-dir "$LOG" \
	>"$TMP/run.out" 2>"$TMP/run.err" &
PID=$!
unhealthy() { "$VIGIL" health --log-dir "$LOG" >/dev/null 2>&1; [ $? = 1 ]; }
for _ in $(seq 300); do unhealthy && break; sleep 0.1; done
check "the GPU is unhealthy" unhealthy
WANT='^  unhealthy gpu0\.pcie: reboot the machine; since ([0-9-]+ )?[0-9:]+; GPU 0: '

# --- vigil status, running ------------------------------------------------------------
"$VIGIL" status --log-dir "$LOG" >"$TMP/status.out" 2>&1
check "status: the machine's state" grep -q '^Health: unhealthy$' "$TMP/status.out"
check "status: the part, its action, since when, the reason" grep -Eq "$WANT" "$TMP/status.out"
check "status: the verdict before the findings" awk '/^Health: /{h=NR} /^What happened/{w=NR} END{exit !(h && w && h < w)}' "$TMP/status.out"

# --- vigil report ---------------------------------------------------------------------
"$VIGIL" report "$LOG"/host-*.csv >"$TMP/report.out" 2>"$TMP/report.err"
check "report: the verdict first" grep -q '^Health: unhealthy$' <(head -1 "$TMP/report.out")
check "report: the part and its action" grep -Eq "$WANT" "$TMP/report.out"

# --- the exit summary -----------------------------------------------------------------
kill -TERM "$PID"
wait "$PID"
check_eq "exit status 0 after SIGTERM" 0 $?
check "exit summary: the verdict" grep -q '^  Health: unhealthy$' "$TMP/run.out"
check "exit summary: the part and its action" grep -Eq "^  ${WANT#^}" "$TMP/run.out"
check "exit summary: what happened stays last" awk '/Health: unhealthy/{h=NR} /What happened/{w=NR} END{exit !(h && w && h < w)}' "$TMP/run.out"

# --- vigil status, stopped: the state file's verdict ---------------------------------
"$VIGIL" status --log-dir "$LOG" >"$TMP/down.out" 2>"$TMP/down.err"
check_eq "status down: exit 1 (nothing runs)" 1 $?
check "status down: says where the verdict comes from" grep -q "^The verdict it left ($LOG/health.state):$" "$TMP/down.out"
check "status down: the part and its action" grep -Eq "$WANT" "$TMP/down.out"

# --- a damaged state file: said, nothing else lost ------------------------------------
printf 'garbage\n' >"$LOG/health.state"
"$VIGIL" status --log-dir "$LOG" >"$TMP/bad.out" 2>"$TMP/bad.err"
check "status, damaged file: said on stderr" grep -q "cannot read $LOG/health.state: not a health state file" "$TMP/bad.err"
"$VIGIL" report "$LOG"/host-*.csv >"$TMP/report2.out" 2>"$TMP/report2.err"
check "report, damaged file: said on stderr" grep -q "cannot read $LOG/health.state: not a health state file" "$TMP/report2.err"
check "report, damaged file: the rest still there" grep -q 'What happened' "$TMP/report2.out"
