#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The tests that switch to an unprivileged user, run from a checkout in a 0700
# directory (a home): the user cannot reach the checkout's binary or fixtures, so those
# tests must run copies the user can reach (reachable_by_all in tests/lib.sh).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/faults/helpers.sh"

if ! is_root; then
	ok "0700 checkout # skip needs root to switch to an unprivileged user"
	exit 0
fi
HOME_DIR="$TMP/home"
mkdir -m 700 "$HOME_DIR"
CO="$HOME_DIR/vigil"
mkdir -p "$CO/$(basename "$BUILD_DIR")"
cp -a "$TOP/tests" "$CO/"
cp -a "$VIGIL" "$CO/$(basename "$BUILD_DIR")/vigil"
VIGIL_BUILD=$(basename "$BUILD_DIR") bash "$CO/tests/integration/faults_noroot.sh" >"$TMP/out.txt" 2>&1
check "0700 checkout: the unprivileged tests ran" grep -q '^ok user: 3 host rows' "$TMP/out.txt"
check_eq "0700 checkout: none failed" 0 "$(grep -c '^not ok' "$TMP/out.txt")"
grep '^not ok' "$TMP/out.txt" | head -5 | sed 's/^/    /'
