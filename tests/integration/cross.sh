#!/usr/bin/env bash
# The Raspberry Pi unit tests built for aarch64 and armhf and run under qemu-user
# (scripts/cross-test.sh): the mailbox words, the fake firmware and the source must
# behave the same with 32-bit pointers and on the Pi's own architectures.
# Runs once, in the plain pass: under the ASan build it prints nothing.
# shellcheck source=../lib.sh
source "$(dirname "$0")/../lib.sh"
[ "${VIGIL_LABEL:-plain}" = asan ] && exit 0
"$TOP/scripts/cross-test.sh"
exit 0
