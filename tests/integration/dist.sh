#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What vigil ships besides the binary: alert rules, the systemd unit, the man page.
. "$(dirname "$0")/../lib.sh"
[ "${VIGIL_LABEL:-plain}" = asan ] && exit 0 # nothing here depends on the build flavour

rules="$TOP/dist/prometheus"
rule_files=(vigil-rules.yml vigil-scrape-rules.yml vigil-push-rules.yml)
for f in "${rule_files[@]}"; do
	check "promtool check rules $f" promtool check rules "$rules/$f"
done
for t in vigil-rules.test.yml vigil-push-rules.test.yml; do
	out=$(cd "$rules" && promtool test rules "$t" 2>&1)
	check "promtool test rules $t" grep -q SUCCESS <<<"$out" || echo "$out" | head -20
done
# A push-only receiver loads vigil-rules.yml and vigil-push-rules.yml: a fleet of pushed
# machines, all well, has no `up` series, and none of those rules fires on it.
{
	printf 'rule_files: [%s, %s]\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n    input_series:\n' \
		"$rules/vigil-rules.yml" "$rules/vigil-push-rules.yml"
	for m in 1 2 3; do
		l="instance=\"pi$m\",job=\"vigil\",machine_id=\"0123456789abcdef0123456789abcde$m\",hardware_id=\"rpi-1000000$m\""
		printf "      - series: 'vigil_samples_total{%s,source=\"host\"}'\n        values: '1+1x60'\n" "$l"
		printf "      - series: 'vigil_previous_run_end{%s,kind=\"clean\"}'\n        values: '1x60'\n" "$l"
		printf "      - series: 'vigil_start_time_seconds{%s}'\n        values: '0x60'\n" "$l"
		printf "      - series: 'vigil_remote_write_samples_dropped_total{%s,reason=\"queue_full\"}'\n        values: '0x60'\n" "$l"
	done
	printf '    alert_rule_test:\n'
	for a in $(sed -n 's/^ *- alert: //p' "$rules/vigil-rules.yml" "$rules/vigil-push-rules.yml"); do
		printf '      - eval_time: 45m\n        alertname: %s\n        exp_alerts: []\n' "$a"
	done
} >"$TMP/push-quiet.test.yml"
out=$(promtool test rules "$TMP/push-quiet.test.yml" 2>&1)
check "push-only: no rule fires on a well fleet of pushed machines" grep -q SUCCESS <<<"$out" || echo "$out" | head -20
check "the rules' header names where the package installs them" grep -q '/usr/share/vigil/vigil-rules.yml' "$rules/vigil-rules.yml"
# The Xid alert's codes are the catalog's reset and reboot classes, no more, no less.
want=$(for x in $(seq 1 255); do "$VIGIL" xid "$x" 2>/dev/null | grep -q 'Severity: critical (re\(set\|boot\))' && printf '%s|' "$x"; done)
got=$(grep -m1 -o 'vigil_gpu_xid_errors_total{xid=~"[0-9|]*"' "$rules/vigil-rules.yml" | sed 's/.*"\(.*\)"/\1/')
check_eq "VigilGpuXidResetClass's codes are the catalog's reset and reboot classes" "${want%|}" "$got"
for f in "${rule_files[@]}"; do
	# Every alert says what to do.
	check_eq "$f: every alert has a runbook" "$(grep -c '^ *- alert:' "$rules/$f")" "$(grep -c '^ *runbook:' "$rules/$f")"
	# Every rule has a test that fires it.
	for alert in $(sed -n 's/^ *- alert: //p' "$rules/$f"); do
		check "rule $alert is tested" grep -q "alertname: $alert\$" "$rules"/*.test.yml
	done
done

if [ -f "$TOP/dist/vigil.8" ]; then
	mkdir -p "$TMP/man/man8"
	cp "$TOP/dist/vigil.8" "$TMP/man/man8/"
	warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=w -l "$TOP/dist/vigil.8" 2>&1 >/dev/null)
	check_eq "man page renders without warnings" "" "$warnings"
	# Every option of --help is documented.
	for opt in $("$VIGIL" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		check "man page documents $opt" grep -q -- "${opt//-/\\\\-}" "$TOP/dist/vigil.8"
	done
fi

if command -v systemd-analyze >/dev/null; then
	sed "s#/usr/local/bin/vigil#$VIGIL#" "$TOP/dist/systemd/vigil.service" >"$TMP/vigil.service"
	out=$(MANPATH="$TMP/man" systemd-analyze verify "$TMP/vigil.service" 2>&1)
	check_eq "systemd-analyze verify" "" "$out"
fi
# The unit reaches /dev/vcio_gencmd as shipped: group video, no device sandbox.
unit="$TOP/dist/systemd/vigil.service"
check "unit: group video (the Pi firmware nodes)" grep -qx 'SupplementaryGroups=video' "$unit"
check "unit: starts after time-sync.target" grep -Eq '^After=.*\btime-sync\.target\b' "$unit"
check "deb unit: starts after time-sync.target" bash -c "sh '$TOP/debian/vigil-unit.sh' | grep -Eq '^After=.*\btime-sync\.target\b'"
check "unit: devices not hidden" bash -c "! grep -Eq '^(PrivateDevices=(yes|true|1)|DevicePolicy=)' '$unit'"

# make install honours DESTDIR and PREFIX.
make -s -C "$TOP" install DESTDIR="$TMP/root" PREFIX=/usr >/dev/null 2>&1
for f in usr/bin/vigil usr/lib/systemd/system/vigil.service usr/share/vigil/vigil-rules.yml \
	usr/share/vigil/vigil-scrape-rules.yml usr/share/vigil/vigil-push-rules.yml \
	usr/share/man/man8/vigil.8 usr/share/vigil/grafana-vigil.json; do
	check "make install puts $f" test -f "$TMP/root/$f"
done
check "installed unit runs the installed binary" grep -q '^ExecStart=/usr/bin/vigil ' "$TMP/root/usr/lib/systemd/system/vigil.service"

# The Debian package: /etc/default/vigil names only options its unit passes (the unit it
# describes is the one debian/rules installs), and every package in Recommends ships a
# library vigil opens by that name.
pkgunit=$(sh "$TOP/debian/vigil-unit.sh")
exec_start=$(sed -n 's/^ExecStart=//p' <<<"$pkgunit")
check_eq "deb unit: ExecStart" '/usr/bin/vigil --quiet $VIGIL_OPTS' "$exec_start"
check_eq "/etc/default/vigil quotes the unit's ExecStart" "ExecStart=$exec_start" \
	"$(sed -n 's/^#[[:space:]]*\(ExecStart=.*\)/\1/p' "$TOP/debian/vigil.default")"
# Options named in its comment, other than inside an example VIGIL_OPTS, are the unit's.
for opt in $(grep '^#' "$TOP/debian/vigil.default" | grep -v 'VIGIL_OPTS=' | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	check "/etc/default/vigil: the unit passes $opt" grep -qw -- "$opt" <<<"$exec_start"
done
sonames=$(sed -n 's/^#define [A-Z_]*_SONAME *"\(.*\)"$/\1/p' "$TOP"/src/*/*.h | sort -u)
recommends=$(sed -n 's/^Recommends: //p' "$TOP/debian/control")
for pkg in $(tr ',|' '\n\n' <<<"$recommends" | sed 's/(.*)//; s/ //g'); do
	# Only what this machine has installed can be looked into.
	files=$(dpkg -L "$pkg" 2>/dev/null) || continue
	shipped=$(grep -o '[^/]*$' <<<"$files" | grep -Fxf <(printf '%s\n' "$sonames"))
	check "Recommends: $pkg ships a library vigil opens" test -n "$shipped"
done
