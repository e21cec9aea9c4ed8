#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# dist/npd/vigil-health.json against node-problem-detector's own rules, and the Slurm
# checks of dist/slurm/ against `vigil health`'s exit codes (a stand-in vigil, NHC's
# functions and scontrol as stubs).
#
# The rules, from kubernetes/node-problem-detector at 6632ca67148f (2026-08-22):
#   pkg/custompluginmonitor/types/config.go
#     :28-36   defaults: timeout 5s, invoke_interval 30s, max_output_length 80,
#              concurrency 3
#     :38      plugin must be "custom" (checked by Validate at :141)
#     :43-57   pluginConfig keys: invoke_interval timeout max_output_length concurrency
#              enable_message_change_based_condition_update skip_initial_status
#     :64-74   top-level keys: plugin pluginConfig source conditions rules metricsReporting
#     :84,95,122  timeouts and intervals parse as Go durations (time.ParseDuration)
#     :152     a rule's timeout must not exceed the global timeout
#     :159     a rule's path must exist (on the node: the package's /usr/bin/vigil)
#     :165-177 a permanent rule's condition must have a default condition
#   pkg/custompluginmonitor/types/types.go
#     :28-30   exit status OK 0, NonOK 1, Unknown 2
#     :43-59   rule keys: type condition reason path args timeout invoke_interval
#   pkg/types/types.go:99,101  rule types "temporary", "permanent"
#   pkg/custompluginmonitor/plugin/plugin.go:336-337  stdout cut at max_output_length
# One rule of ours on top: a timeout below the invoke interval (a slow plugin would
# otherwise run back to back).
. "$(dirname "$0")/../lib.sh"
[ "${VIGIL_LABEL:-plain}" = asan ] && exit 0 # nothing here depends on the build flavour

cfg="$TOP/dist/npd/vigil-health.json"
# npd_check FILE: one "ok"/"not ok" line per rule.
npd_check() { python3 -c "$checker" "$1" "$TOP/debian/rules"; }
checker=$(cat <<'PY'
import json, re, sys

cfg = json.load(open(sys.argv[1]))
installed = re.search(r"install -D -m 0755 build/pkg/vigil \$\(PKG\)(/\S+)", open(sys.argv[2]).read()).group(1)

def dur(s):
    # Go's time.ParseDuration: a sequence of decimal numbers with units.
    units = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}
    parts = re.findall(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)", s)
    assert parts and "".join(a + b for a, b in parts) == s, f"not a Go duration: {s!r}"
    return sum(float(a) * units[b] for a, b in parts)

def check(name, cond):
    print(("ok " if cond else "not ok ") + "npd config: " + name)

check("top-level keys are NPD's (config.go:64-74)",
      set(cfg) <= {"plugin", "pluginConfig", "source", "conditions", "rules", "metricsReporting"})
check("plugin is custom (config.go:38,141)", cfg.get("plugin") == "custom")
pc = cfg.get("pluginConfig", {})
check("pluginConfig keys are NPD's (config.go:43-57)",
      set(pc) <= {"invoke_interval", "timeout", "max_output_length", "concurrency",
                  "enable_message_change_based_condition_update", "skip_initial_status"})
timeout = dur(pc.get("timeout", "5s"))          # config.go:28, :84
interval = dur(pc.get("invoke_interval", "30s"))  # config.go:30, :95
check("source named", bool(cfg.get("source")))
check("max_output_length is an int above the default 80 (config.go:32; plugin.go:336)",
      isinstance(pc.get("max_output_length", 80), int) and pc.get("max_output_length", 80) >= 80)
check("concurrency is a positive int (config.go:33)", isinstance(pc.get("concurrency", 3), int) and pc.get("concurrency", 3) > 0)
conds = {c["type"] for c in cfg.get("conditions", [])}
for c in cfg.get("conditions", []):
    check(f"condition {c.get('type')} has type, reason and message", set(c) == {"type", "reason", "message"})
for r in cfg.get("rules", []):
    name = r.get("reason", "?")
    check(f"rule {name}: keys are NPD's (types.go:43-59)",
          set(r) <= {"type", "condition", "reason", "path", "args", "timeout", "invoke_interval"})
    check(f"rule {name}: type temporary or permanent (pkg/types/types.go:99,101)",
          r.get("type") in ("temporary", "permanent"))
    rt = dur(r["timeout"]) if "timeout" in r else None  # config.go:122
    check(f"rule {name}: timeout <= global timeout (config.go:152)", rt is None or rt <= timeout)
    ri = dur(r["invoke_interval"]) if "invoke_interval" in r else interval
    check(f"rule {name}: timeout < invoke interval", (rt or timeout) < ri)
    check(f"rule {name}: path is where the package installs vigil (config.go:159)",
          r.get("path") == installed)
    check(f"rule {name}: a permanent rule's condition has a default (config.go:165-177)",
          r.get("type") != "permanent" or r.get("condition") in conds)
    check(f"rule {name}: runs `vigil health`", r.get("args", [])[:1] == ["health"])
PY
)
out=$(npd_check "$cfg")
echo "$out"
check "npd config: the checks ran" grep -q '^ok npd config: rule' <<<"$out"
# The checker fails configs NPD would refuse: a rule timeout over the global one, a
# permanent rule without its default condition, another plugin.
sed 's/"timeout": "15s"$/"timeout": "30s"/' "$cfg" >"$TMP/bad1.json"
check "npd config: a rule timeout over the global one is refused" \
	grep -q '^not ok .*config.go:152' <<<"$(npd_check "$TMP/bad1.json")"
sed 's/"condition": "VigilHealthProblem"/"condition": "Other"/' "$cfg" >"$TMP/bad2.json"
check "npd config: a permanent rule without a default condition is refused" \
	grep -q '^not ok .*config.go:165-177' <<<"$(npd_check "$TMP/bad2.json")"
sed 's/"plugin": "custom"/"plugin": "journald"/' "$cfg" >"$TMP/bad3.json"
check "npd config: another plugin is refused" grep -q '^not ok .*config.go:38,141' <<<"$(npd_check "$TMP/bad3.json")"

# --- the Slurm checks against `vigil health`'s exit codes ---------------------------
mkdir -p "$TMP/bin"
# A stand-in vigil: exits with $FAKE_RC, one line on stdout.
cat >"$TMP/bin/vigil" <<'EOF'
#!/bin/sh
echo "$FAKE_LINE"
exit "$FAKE_RC"
EOF
cat >"$TMP/bin/scontrol" <<'EOF'
#!/bin/sh
if [ "$1" = show ]; then printf '   Reason=%s [root@2026-01-01]\n' "$FAKE_REASON"; exit 0; fi
echo "scontrol $*" >>"$SCONTROL_LOG"
EOF
chmod +x "$TMP/bin/vigil" "$TMP/bin/scontrol"
export SCONTROL_LOG="$TMP/scontrol.log" SLURMD_NODENAME=n1 VIGIL="$TMP/bin/vigil"
slurm() {
	: >"$SCONTROL_LOG"
	FAKE_RC=$1 FAKE_LINE=$2 FAKE_REASON=${3:-} PATH="$TMP/bin:$PATH" sh "$TOP/dist/slurm/vigil-healthcheck.sh"
	cat "$SCONTROL_LOG"
}
check_eq "slurm: unhealthy drains with the line" \
	'scontrol update nodename=n1 state=drain reason=vigil: unhealthy: gpu3.pcie: reboot the machine' \
	"$(slurm 1 'unhealthy: gpu3.pcie: reboot the machine')"
check_eq "slurm: healthy resumes vigil's own drain" 'scontrol update nodename=n1 state=resume' \
	"$(slurm 0 healthy 'vigil: unhealthy: gpu3.pcie')"
check_eq "slurm: healthy leaves another drain alone" "" "$(slurm 0 healthy 'memory test failed')"
check_eq "slurm: unknown changes nothing" "" "$(slurm 2 'unknown: vigil is not running')"

# NHC: the check function with NHC's die/log/nhc_cmd_with_timeout as stubs.
nhc() {
	FAKE_RC=$1 FAKE_LINE=$2 bash -c '
		die() { echo "die $1 $2"; }
		log() { echo "log $1"; }
		nhc_cmd_with_timeout() { shift; "$@"; }
		vigil_bin='"$TMP"'/bin/vigil
		. '"$TOP"'/dist/slurm/vigil.nhc
		eval "$(declare -f check_vigil_health | sed "s#/usr/bin/vigil#$vigil_bin#")"
		check_vigil_health '"${3:-}"'; echo "rc $?"'
}
check_eq "nhc: healthy passes" "rc 0" "$(nhc 0 healthy)"
check_eq "nhc: unhealthy fails with the line" "die 1 check_vigil_health:  unhealthy: gpu0.driver: reset the GPU
rc 1" "$(nhc 1 'unhealthy: gpu0.driver: reset the GPU')"
check_eq "nhc: unknown only logs" "log check_vigil_health:  unknown: vigil is not running
rc 0" "$(nhc 2 'unknown: vigil is not running')"
check_eq "nhc: -u makes unknown fail" "die 1 check_vigil_health:  unknown: x
rc 1" "$(nhc 2 'unknown: x' -u)"
