#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The daemon, its tests' simulated NVML and the unit tests are linked as the Debian
# package is (debian/rules, hardening=+all): every symbol bound at load (-z now: the
# BIND_NOW flag, ld(1)) and the relocated tables read-only once bound (-z relro: a
# GNU_RELRO segment). Besides the hardening, no lazy binding runs the loader's code and
# reads the libraries' symbol tables minutes after start, when a function that runs
# once a minute is first called, leaving those pages in the daemon's resident set.
. "$(dirname "$0")/../lib.sh"
need_tool "linked with -z now" readelf

# bound NAME FILE: FILE's dynamic section says BIND_NOW and it has a GNU_RELRO segment.
bound() {
	local dyn seg
	dyn=$(readelf -d "$2" 2>&1)
	seg=$(readelf -lW "$2" 2>&1)
	check "$1: every symbol bound at load (BIND_NOW)" grep -q 'BIND_NOW' <<<"$dyn"
	check "$1: relocated tables read-only (GNU_RELRO)" grep -q 'GNU_RELRO' <<<"$seg"
}

bound "vigil" "$BUILD_DIR/vigil"
need_nvml_sim "the simulated NVML linked with -z now"
bound "the simulated NVML" "$NVML_SIM"
