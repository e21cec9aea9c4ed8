#!/usr/bin/env bash
# Folders are layers (HACKING.md, "Folders and what each may include"): a file in a lower
# folder includes headers of its own folder and the ones below it, never a higher one's.
# Every folder below main.c is checked here: util/, core/ (the model), encode/ (the CSV
# text of the model's rows), collect/, detect/, report/, sink/ and daemon/ (the loop, the
# registry and the control path: the top layer).
. "$(dirname "$0")/../lib.sh"

# What each folder may include: the folder first, then the folders it may include.
SPECS=("util util" "core util core" "encode util core encode"
	"collect util core encode collect" "detect util core encode collect detect"
	"report util core encode collect detect report"
	"sink util core encode collect detect report sink"
	"daemon util core encode collect detect report sink daemon")

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

# The model never includes its encoders: a core/ file that did (core/ring.c once wrote the
# dump's CSV itself) is caught by the core/ spec; this is the case the split is for.
mkdir -p "$tmp"/m/src/core
printf '#include "encode/ring_csv.h"\n' >"$tmp"/m/src/core/ring.c
check_eq "layers: core/ including encode/ is caught" "src/core/ring.c: encode/ring_csv.h" \
	"$(check_tree "$tmp"/m)"

# Calls, not only includes: a function or variable an object of a lower folder uses is
# never defined in a higher folder (an extern declared below and defined above would
# pass the include check). Folders in order, lowest first; from the build's objects.
ORDER=(util core encode collect detect report sink daemon)
# calls_up BUILD: "src/FOLDER/FILE.o: SYMBOL (defined in FOLDER2/)" per offending use.
calls_up() {
	local build=$1 i j o sym
	declare -A home=()
	for ((i = 0; i < ${#ORDER[@]}; i++)); do
		for o in "$build"/src/"${ORDER[i]}"/*.o; do
			[ -f "$o" ] || continue
			while read -r sym; do home[$sym]=$i; done < <(nm --defined-only -g "$o" | awk '{print $3}')
		done
	done
	for ((i = 0; i < ${#ORDER[@]}; i++)); do
		for o in "$build"/src/"${ORDER[i]}"/*.o; do
			[ -f "$o" ] || continue
			while read -r sym; do
				j=${home[$sym]:-}
				[ -n "$j" ] && [ "$j" -gt "$i" ] && echo "${o#"$build"/}: $sym (defined in ${ORDER[j]}/)"
			done < <(nm --undefined-only -g "$o" | awk '{print $2}')
		done
	done
}
if [ -d "$BUILD_DIR/src/core" ]; then
	out=$(calls_up "$BUILD_DIR")
	check_eq "layers: no object calls up a layer" "" "$out"
	# The check itself: an object of core/ that uses a symbol of daemon/ is caught.
	mkdir -p "$tmp"/b/src/core "$tmp"/b/src/daemon
	printf 'int up_defined(void);\nint below(void) { return up_defined(); }\n' >"$tmp"/b/c.c
	printf 'int up_defined(void) { return 1; }\n' >"$tmp"/b/d.c
	cc -c -o "$tmp"/b/src/core/c.o "$tmp"/b/c.c && cc -c -o "$tmp"/b/src/daemon/d.o "$tmp"/b/d.c
	check_eq "layers: a call up a layer is caught" \
		"src/core/c.o: up_defined (defined in daemon/)" "$(calls_up "$tmp"/b)"
else
	not_ok "layers: no object calls up a layer: $BUILD_DIR is not built"
fi
