#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Build vigil's Debian packages with Debian's tooling (debian/, debhelper,
# dpkg-buildpackage): natively, and cross for other architectures the way Debian
# cross-builds (-a ARCH with the "cross nocheck" build profiles and nocheck option).
# Each architecture builds in its own copy of the tree under build/deb/work-ARCH (so
# dpkg-buildpackage's ../ is there, not beside the checkout); the packages land in
# build/deb/ as vigil_VERSION-REV_ARCH.deb, each checked by lintian (errors fail).
#   scripts/deb.sh [ARCH...]        (default: the native architecture, arm64, armhf)
#   DEB_OUT=DIR scripts/deb.sh ...  (another output directory)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${DEB_OUT:-build/deb}
native=$(dpkg --print-architecture)
version=$(dpkg-parsechangelog -S Version)
archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=("$native" arm64 armhf)
if [ "${version%-*}" != "$(cat VERSION)" ]; then
	echo "deb: debian/changelog is at $version but VERSION says $(cat VERSION): add a changelog entry (dch -v $(cat VERSION)-1)" >&2
	exit 1
fi

copy_tree() { # copy_tree DIR: the source tree as git sees it (uncommitted edits too)
	mkdir -p "$1"
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -z -co --exclude-standard |
			tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C "$1"
	else
		tar --exclude='./build*' --exclude=./debian/vigil --exclude=./.git -cf - . | tar -xf - -C "$1"
	fi
}

build_arch() { # build_arch ARCH
	local arch=$1 work=$out/work-$1 deb log
	deb=vigil_${version}_$arch.deb
	log=$out/vigil_${version}_$arch.build.log
	rm -rf "$work" "${out:?}/$deb"
	copy_tree "$work/vigil"
	echo "deb: building $deb (log: $log)"
	if [ "$arch" = "$native" ]; then
		(cd "$work/vigil" && dpkg-buildpackage -b -uc -us) >"$log" 2>&1
	else
		(cd "$work/vigil" &&
			DEB_BUILD_OPTIONS="nocheck${DEB_BUILD_OPTIONS:+ $DEB_BUILD_OPTIONS}" \
				DEB_BUILD_PROFILES="cross nocheck" dpkg-buildpackage -b -uc -us -a"$arch") >"$log" 2>&1
	fi || {
		echo "deb: $deb failed; the end of $log:" >&2
		tail -30 "$log" >&2
		return 1
	}
	mv "$work/$deb" "$out/$deb"
	rm -rf "$work"
	# lintian's tags for the package: errors fail the build; the warnings left are
	# named in debian/vigil.lintian-overrides (with why) and so are not shown.
	if ! lintian --fail-on error "$out/$deb" >"$out/vigil_${version}_$arch.lintian" 2>&1; then
		echo "deb: lintian errors in $deb:" >&2
		cat "$out/vigil_${version}_$arch.lintian" >&2
		return 1
	fi
	grep -v "running with root privileges" "$out/vigil_${version}_$arch.lintian" | sed "s/^/deb: lintian: /" || true
	echo "deb: $out/$deb"
}

# dh builds with make -jN when asked (Debian's convention: DEB_BUILD_OPTIONS parallel=N).
case " ${DEB_BUILD_OPTIONS:-} " in
*" parallel="*) ;;
*) export DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:+$DEB_BUILD_OPTIONS }parallel=$(nproc)" ;;
esac

mkdir -p "$out"
rc=0
for a in "${archs[@]}"; do
	build_arch "$a" || rc=1
done
exit $rc
