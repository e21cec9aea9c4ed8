#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Install the Debian packages vigil needs that are missing.
# Usage: scripts/deps.sh build|test|check|bench|fuzz|soak|deb
# As root it runs apt-get; otherwise it prints the exact command and fails.
# A package named PKG:ARCH (packages.cross) needs ARCH as a dpkg foreign architecture:
# it is added when missing (dpkg --add-architecture is idempotent; it only lets apt
# consider that architecture's packages, nothing is installed by it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lists=("$here/packages.build")
case "${1:-build}" in
test) lists+=("$here/packages.test") ;;
check) lists+=("$here/packages.test" "$here/packages.deb" "$here/packages.cross") ;;
deb) lists+=("$here/packages.deb" "$here/packages.cross") ;;
bench) lists+=("$here/packages.bench") ;;
fuzz) lists+=("$here/packages.fuzz") ;;
soak) lists+=("$here/packages.soak") ;;
esac

missing=()
archs=()
native=$(dpkg --print-architecture)
for pkg in $(grep -hv '^\s*#' "${lists[@]}" | awk 'NF {print $1}'); do
	# With foreign architectures a Multi-Arch: same package answers once per architecture:
	# a plain name wants the native (or an Architecture: all) one, PKG:ARCH that one.
	want=$native
	case $pkg in *:*) want=${pkg#*:} ;; esac
	if dpkg-query -W -f='${Status} ${Architecture}\n' "$pkg" 2>/dev/null |
		grep -Eqx "install ok installed ($want|all)"; then
		continue
	fi
	missing+=("$pkg")
	case $pkg in *:*) archs+=("${pkg#*:}") ;; esac
done
[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
for arch in $(printf '%s\n' "${archs[@]}" | sort -u); do
	cmd="dpkg --add-architecture $arch && $cmd"
done
if [ "$(id -u)" -ne 0 ]; then
	echo "vigil: missing Debian packages: ${missing[*]}" >&2
	echo "vigil: run as root: $cmd" >&2
	exit 1
fi
echo "vigil: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
for arch in $(printf '%s\n' "${archs[@]}" | sort -u); do
	if [ "$arch" != "$(dpkg --print-architecture)" ] && ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
		echo "vigil: adding dpkg architecture $arch (for the cross builds)"
		dpkg --add-architecture "$arch"
	fi
done
# A mirror caught mid-sync fails one index (say, armhf's security list) while the rest
# are fine: that is a warning, and the install below decides whether anything is missing.
apt-get update -q -o DPkg::Lock::Timeout=900 >/dev/null ||
	echo "vigil: apt-get update reported errors; installing from the lists it has" >&2
install() { apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=900 "$@" >/dev/null; }
install "${missing[@]}" && exit 0
# `make check` without the ARM packages still runs everything else: the cross builds then
# say "# skip cross-ARCH: the build dependencies are missing" (scripts/cross-test.sh).
# Every other set, and `make deb` (which builds the ARM packages), needs all it asked for.
native_only=()
for pkg in "${missing[@]}"; do
	case $pkg in *:*) ;; *) native_only+=("$pkg") ;; esac
done
if [ "${1:-build}" = check ] && [ ${#native_only[@]} -lt ${#missing[@]} ]; then
	echo "vigil: the arm64/armhf packages cannot be installed now (see apt-get above);" \
		"installing the rest: the cross builds are skipped until they can be" >&2
	[ ${#native_only[@]} -eq 0 ] || install "${native_only[@]}"
	exit
fi
exit 1
