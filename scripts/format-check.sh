#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fail when any C file differs from what the repo's .clang-format makes of it.
set -uo pipefail
cd "$(dirname "$0")/.."
files=$(find src tests fuzz bench -name '*.[ch]' 2>/dev/null | sort)
[ -n "$files" ] || exit 0
# shellcheck disable=SC2086
clang-format --dry-run -Werror $files
