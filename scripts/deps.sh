#!/usr/bin/env bash
# Install the Debian packages vigil needs that are missing.
# Usage: scripts/deps.sh build|test|bench|fuzz|soak
# As root it runs apt-get; otherwise it prints the exact command and fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lists=("$here/packages.build")
case "${1:-build}" in
test) lists+=("$here/packages.test") ;;
bench) lists+=("$here/packages.bench") ;;
fuzz) lists+=("$here/packages.fuzz") ;;
soak) lists+=("$here/packages.soak") ;;
esac

missing=()
for pkg in $(grep -hv '^\s*#' "${lists[@]}" | awk 'NF {print $1}'); do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "vigil: missing Debian packages: ${missing[*]}" >&2
	echo "vigil: run as root: apt-get update && $cmd" >&2
	exit 1
fi
echo "vigil: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends ${missing[*]} >/dev/null
