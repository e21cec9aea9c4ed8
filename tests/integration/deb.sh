#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Debian packages end to end (debian/, scripts/deb.sh): built with dpkg-buildpackage
# natively and cross for arm64 and armhf, lintian without errors, then the native one
# installed on this machine with apt, used, reinstalled over an edited conffile, removed
# and purged, and the machine checked to be as it was found.
# This installs a package on the machine that runs the tests, so it runs only as root,
# never where a vigil package (or its files) already is, one run at a time, and purges
# what it installed whatever happens. Runs once, in the plain pass.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
[ "${VIGIL_LABEL:-plain}" = asan ] && exit 0

native=$(dpkg --print-architecture)
version=$(cd "$TOP" && dpkg-parsechangelog -S Version)
out=$TMP/deb
for tool in dpkg-buildpackage dh lintian; do
	command -v "$tool" >/dev/null || { echo "# skip deb: $tool missing (scripts/packages.deb)"; exit 0; }
done

# 1. Build the three packages (as make deb does, into a directory of our own).
DEB_OUT=$out "$TOP/scripts/deb.sh" "$native" arm64 armhf >"$TMP/deb.log" 2>&1
check "deb: scripts/deb.sh builds every architecture" test $? -eq 0 || tail -30 "$TMP/deb.log"
for arch in "$native" arm64 armhf; do
	deb=$out/vigil_${version}_$arch.deb
	if ! test -f "$deb"; then
		not_ok "deb: $arch package built as vigil_${version}_$arch.deb"
		continue
	fi
	ok "deb: $arch package built as vigil_${version}_$arch.deb"
	check_eq "deb: $arch package's Architecture" "$arch" "$(dpkg-deb -f "$deb" Architecture)"
	check "deb: $arch package's Depends from shlibs (libinih1, libc6)" \
		grep -Eq 'libc6 .*libinih1|libinih1.*libc6' <<<"$(dpkg-deb -f "$deb" Depends)"
	check_eq "deb: $arch package's Recommends" "libmicrohttpd12, zlib1g, libcurl4, libsnappy1v5" \
		"$(dpkg-deb -f "$deb" Recommends)"
	check "deb: $arch package depends on no NVIDIA package" \
		bash -c "! dpkg-deb -f '$deb' Depends Recommends Suggests | grep -qi nvidia"
	case $arch in
	amd64) elf='ELF 64-bit.*x86-64' ;;
	arm64) elf='ELF 64-bit.*ARM aarch64' ;;
	armhf) elf='ELF 32-bit.*ARM, EABI5' ;;
	*) elf=ELF ;;
	esac
	mkdir -p "$TMP/x-$arch"
	dpkg-deb -x "$deb" "$TMP/x-$arch"
	check "deb: $arch package's /usr/bin/vigil is an $arch binary" \
		grep -Eq "$elf" <<<"$(LC_ALL=C file "$TMP/x-$arch/usr/bin/vigil")"
	lint=$out/vigil_${version}_$arch.lintian
	check "deb: lintian reports no error for $arch" bash -c "test -f '$lint' && ! grep -q '^E:' '$lint'" ||
		grep '^E:' "$lint" | head -10
	# Every warning left is named in debian/vigil.lintian-overrides, so none is shown.
	check_eq "deb: lintian warnings for $arch all named in debian/" "" "$(grep '^W:' "$lint")"
done
want="etc/default/vigil etc/vigil/vigil.conf lib/systemd/system/vigil.service usr/bin/vigil \
usr/share/doc/vigil/README.Debian.gz usr/share/man/man8/vigil.8.gz usr/share/vigil/vigil-rules.test.yml \
usr/share/vigil/vigil-rules.yml usr/share/doc/vigil/examples/npd/vigil-health.json \
usr/share/doc/vigil/examples/slurm/vigil.nhc usr/share/doc/vigil/examples/slurm/vigil-healthcheck.sh"
for f in $want; do
	check "deb: package ships /$f" test -f "$TMP/x-$native/$f"
done
check_eq "deb: conffiles" "/etc/default/vigil /etc/vigil/vigil.conf" \
	"$(dpkg-deb -I "$out/vigil_${version}_$native.deb" conffiles | sort | xargs)"
check "deb: packaged unit runs /usr/bin/vigil with VIGIL_OPTS" \
	grep -qx 'ExecStart=/usr/bin/vigil --quiet $VIGIL_OPTS' "$TMP/x-$native/lib/systemd/system/vigil.service"

# 2. Install, use, reinstall, remove and purge the native package on this machine.
deb=$out/vigil_${version}_$native.deb
[ -f "$deb" ] || exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "# skip deb install: not root"
	exit 0
fi
exec 9>"${TMPDIR:-/tmp}/vigil-deb-test.lock"
flock -w 1800 9 || { not_ok "deb install: another run held the lock for 30 minutes"; exit 0; }
status=$(dpkg-query -W -f='${db:Status-Status}' vigil 2>/dev/null)
if [ -n "$status" ] && [ "$status" != not-installed ]; then
	echo "# skip deb install: a vigil package is on this machine ($status); it is not touched"
	exit 0
fi
for f in /etc/vigil /etc/default/vigil /var/log/vigil /usr/bin/vigil /lib/systemd/system/vigil.service; do
	if [ -e "$f" ] || [ -L "$f" ]; then
		echo "# skip deb install: $f exists on this machine; it is not touched"
		exit 0
	fi
done

# What carries vigil's name on the system before; compared after the purge.
vigil_paths() {
	find /etc /usr /lib /var /opt /srv -xdev \( -path /var/tmp -o -path /var/cache/apt \) -prune \
		-o -name '*vigil*' -print 2>/dev/null | sort
}
vigil_paths >"$TMP/paths.before"
installed=0
cleanup() {
	[ $installed -eq 1 ] && DEBIAN_FRONTEND=noninteractive dpkg --purge vigil >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT

export DEBIAN_FRONTEND=noninteractive
installed=1
# The Recommends are not installed: the machine is to be left as it was found.
apt-get install -y --no-install-recommends -o DPkg::Lock::Timeout=900 "$deb" </dev/null >"$TMP/apt.log" 2>&1
check "deb install: apt-get install ./vigil_${version}_$native.deb" test $? -eq 0 || tail -20 "$TMP/apt.log"
check_eq "deb install: apt set up no package but vigil" "vigil" \
	"$(sed -n 's/^Setting up \([^: ]*\).*/\1/p' "$TMP/apt.log" | xargs)"
check_eq "deb install: dpkg status" "install ok installed" "$(dpkg-query -W -f='${Status}' vigil 2>&1)"
check_eq "deb install: vigil --version from /usr/bin" "vigil $(cat "$TOP/VERSION")" \
	"$(/usr/bin/vigil --version 2>&1 | head -1)"
dpkg -L vigil | sort >"$TMP/files"
check "deb install: the installed unit passes systemd-analyze verify" \
	test -z "$(systemd-analyze verify /lib/systemd/system/vigil.service 2>&1)" ||
	systemd-analyze verify /lib/systemd/system/vigil.service 2>&1 | head -5
check "deb install: the unit is enabled (postinst)" \
	test -L /etc/systemd/system/multi-user.target.wants/vigil.service
if [ -d /run/systemd/system ]; then
	check "deb install: the service is running" systemctl is-active --quiet vigil.service
else
	# Without systemd as PID 1 the maintainer scripts enable but start nothing.
	running=$(for p in /proc/[0-9]*; do [ "$(readlink "$p/exe" 2>/dev/null)" = /usr/bin/vigil ] && echo "$p"; done)
	check_eq "deb install: nothing started without systemd" "" "$running"
fi
"/usr/bin/vigil" --root "$FIXTURES/pi4-healthy" --count 1 --interval 0.05 --log-dir "$TMP/run" --quiet 2>/dev/null
check_eq "deb install: the installed vigil records a Pi sample" 47.7 "$(csv_cell "$(ls "$TMP"/run/host-*.csv)" 1 temp_c)"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
check "deb install: the packaged options and config are accepted" /usr/bin/vigil --config /etc/vigil/vigil.conf \
	--root "$FIXTURES/pi4-healthy" --count 1 --interval 0.05 --no-log --quiet --listen "127.0.0.1:$port" 2>/dev/null

# A conffile edit survives a reinstall (and an upgrade: dpkg treats both alike).
echo "# edited by the package test" >>/etc/vigil/vigil.conf
echo 'VIGIL_OPTS="--config /etc/vigil/vigil.conf --interval 2"' >>/etc/default/vigil
dpkg -i "$deb" </dev/null >"$TMP/reinstall.log" 2>&1
check "deb reinstall: dpkg -i over the edited conffiles" test $? -eq 0 || tail -10 "$TMP/reinstall.log"
check "deb reinstall: vigil.conf edit kept" grep -qx '# edited by the package test' /etc/vigil/vigil.conf
check "deb reinstall: /etc/default/vigil edit kept" grep -q -- '--interval 2"$' /etc/default/vigil

# Remove keeps the conffiles; purge removes everything.
dpkg --remove vigil >"$TMP/remove.log" 2>&1
check "deb remove: /usr/bin/vigil gone, conffiles kept" \
	bash -c '! test -e /usr/bin/vigil && test -f /etc/vigil/vigil.conf && test -f /etc/default/vigil'
mkdir -p /var/log/vigil && echo x >/var/log/vigil/host-test.csv # what the service would have written
dpkg --purge vigil >"$TMP/purge.log" 2>&1
check "deb purge: dpkg --purge" test $? -eq 0 || tail -10 "$TMP/purge.log"
installed=0
check_eq "deb purge: package gone from dpkg's database" "" "$(dpkg-query -W -f='${db:Status-Status}' vigil 2>/dev/null | grep -v not-installed)"
left=$(while read -r f; do [ -e "$f" ] && [ ! -d "$f" ] && echo "$f"; done <"$TMP/files")
check_eq "deb purge: no packaged file left" "" "$left"
# systemd-analyze verify ran man(1) for the unit's Documentation=man:vigil(8), and man-db
# cached the formatted page: not the package's, but this test's, so it goes too.
vigil_paths | comm -13 "$TMP/paths.before" - | grep '^/var/cache/man/' | xargs -r rm -f
check_eq "deb purge: no path named vigil left on the system" "" \
	"$(vigil_paths | comm -13 "$TMP/paths.before" -)"
check "deb purge: the logs went too" test ! -e /var/log/vigil
