#!/usr/bin/env bash
# What vigil ships besides the binary: alert rules, the systemd unit, the man page.
. "$(dirname "$0")/../lib.sh"
[ "${VIGIL_LABEL:-plain}" = asan ] && exit 0 # nothing here depends on the build flavour

rules="$TOP/dist/prometheus"
check "promtool check rules" promtool check rules "$rules/vigil-rules.yml"
out=$(cd "$rules" && promtool test rules vigil-rules.test.yml 2>&1)
check "promtool test rules" grep -q SUCCESS <<<"$out" || echo "$out" | head -20
# The Xid alert's codes are the catalog's reset and reboot classes, no more, no less.
want=$(for x in $(seq 1 255); do "$VIGIL" xid "$x" 2>/dev/null | grep -q 'Severity: critical (re\(set\|boot\))' && printf '%s|' "$x"; done)
got=$(grep -m1 -o 'vigil_gpu_xid_errors_total{xid=~"[0-9|]*"' "$rules/vigil-rules.yml" | sed 's/.*"\(.*\)"/\1/')
check_eq "VigilGpuXidResetClass's codes are the catalog's reset and reboot classes" "${want%|}" "$got"
# Every alert says what to do.
check_eq "every alert has a runbook" "$(grep -c '^ *- alert:' "$rules/vigil-rules.yml")" "$(grep -c '^ *runbook:' "$rules/vigil-rules.yml")"
# Every rule has a test that fires it.
for alert in $(sed -n 's/^ *- alert: //p' "$rules/vigil-rules.yml"); do
	check "rule $alert is tested" grep -q "alertname: $alert\$" "$rules/vigil-rules.test.yml"
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
check "unit: devices not hidden" bash -c "! grep -Eq '^(PrivateDevices=(yes|true|1)|DevicePolicy=)' '$unit'"

# make install honours DESTDIR and PREFIX.
make -s -C "$TOP" install DESTDIR="$TMP/root" PREFIX=/usr >/dev/null 2>&1
for f in usr/bin/vigil usr/lib/systemd/system/vigil.service usr/share/vigil/vigil-rules.yml \
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
