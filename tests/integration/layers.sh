#!/usr/bin/env bash
# Folders are layers (HACKING.md, "Folders and what each may include"): a file in a lower
# folder includes headers of its own folder and the ones below it, never a higher one's.
# Every folder below main.c is checked here: util/, core/, collect/, detect/, report/.
. "$(dirname "$0")/../lib.sh"

# What each folder may include: the folder first, then the folders it may include.
SPECS=("util util" "core util core" "collect util core collect"
	"detect util core collect detect" "report util core collect detect report")

# layer ROOT FOLDER ALLOWED...: every project header a file of ROOT/src/FOLDER includes
# lives in one of the ALLOWED folders. Prints each offending "file: header" line.
layer() {
	local root=$1 dir=$2 f line hdr top bad=""
	shift 2
	for f in "$root"/src/"$dir"/*.[ch]; do
		[ -f "$f" ] || continue
		while IFS= read -r line; do
			hdr=${line#*\"}
			hdr=${hdr%%\"*}
			top=${hdr%%/*}
			[ "$top" = "$hdr" ] && continue # same-folder include without a folder
			case " $* " in *" $top "*) continue ;; esac
			bad+="src/$dir/${f##*/}: $hdr"$'\n'
		done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f")
	done
	printf '%s' "$bad"
}

# check_tree ROOT: the offending includes of every folder of ROOT/src, one per line.
check_tree() {
	local spec
	for spec in "${SPECS[@]}"; do
		# shellcheck disable=SC2086 # word splitting of spec is intended
		layer "$1" $spec
	done
}

for spec in "${SPECS[@]}"; do
	# shellcheck disable=SC2086 # word splitting of spec is intended
	out=$(layer "$TOP" $spec)
	name=${spec%% *}
	if [ -z "$out" ]; then
		ok "layers: src/$name/ includes only ${spec#* }"
	else
		not_ok "layers: src/$name/ includes only ${spec#* }"
		printf '%s\n' "$out" | sed 's/^/#   /'
	fi
done

# The counters and the events log are core/'s: no file below sink/ reaches into it.
out=$(grep -lE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"sink/' \
	"$TOP"/src/util/*.[ch] "$TOP"/src/core/*.[ch] "$TOP"/src/collect/*.[ch] \
	"$TOP"/src/detect/*.[ch] "$TOP"/src/report/*.[ch] 2>/dev/null)
check_eq "layers: no sink/ header below sink/" "" "$out"

# The check itself: a tree with one include up from each lower folder (detect/ to
# report/, core/ to sink/, detect/ and report/) is caught, include by include.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/src/core "$tmp"/src/detect
printf '#include "core/vigil.h"\n#include "report/host_acc.h"\n' >"$tmp"/src/detect/trend.c
printf '#include "sink/csvlog.h"\n#include "detect/trend.h"\n#include "report/stats.h"\n' \
	>"$tmp"/src/core/frame.c
want="src/core/frame.c: sink/csvlog.h
src/core/frame.c: detect/trend.h
src/core/frame.c: report/stats.h
src/detect/trend.c: report/host_acc.h"
check_eq "layers: an include up a layer is caught" "$want" "$(check_tree "$tmp")"
