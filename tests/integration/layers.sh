#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Folders are layers (HACKING.md, "Folders and what each may include"): a file in a lower
# folder includes headers of its own folder and the ones below it, never a higher one's.
# Every folder below main.c is checked here: util/, core/ (the model), encode/ (the CSV
# text of the model's rows), collect/, detect/, report/, metrics/ (the exposition of a
# frame), then the three outputs side by side, none of which includes another: local/
# (CSV, summary, system-info.txt, live view, post-mortem), push/ (remote write) and web/
# (the HTTP server and its pages); and daemon/ (the loop, the registry and the control
# path: the top layer).
. "$(dirname "$0")/../lib.sh"

# What each folder may include: the folder first, then the folders it may include.
BELOW="util core encode collect detect report metrics"
SPECS=("util util" "core util core" "encode util core encode"
	"collect util core encode collect" "detect util core encode collect detect"
	"report util core encode collect detect report"
	"metrics util core encode collect detect report metrics"
	"local $BELOW local" "push $BELOW push" "web $BELOW web"
	"daemon $BELOW local push web daemon")

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

# The counters and the events log are core/'s: no file below the outputs reaches into one.
out=$(grep -lE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"(metrics|local|push|web)/' \
	"$TOP"/src/util/*.[ch] "$TOP"/src/core/*.[ch] "$TOP"/src/collect/*.[ch] \
	"$TOP"/src/detect/*.[ch] "$TOP"/src/report/*.[ch] 2>/dev/null)
check_eq "layers: no output header (metrics/, local/, push/, web/) below the outputs" "" "$out"

# The check itself: a tree with one include up from each lower folder (detect/ to
# report/, core/ to local/, detect/ and report/, metrics/ to web/) is caught, include by
# include.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/src/core "$tmp"/src/detect "$tmp"/src/metrics
printf '#include "core/vigil.h"\n#include "report/host_acc.h"\n' >"$tmp"/src/detect/trend.c
printf '#include "local/csvlog.h"\n#include "detect/trend.h"\n#include "report/stats.h"\n' \
	>"$tmp"/src/core/frame.c
printf '#include "core/frame.h"\n#include "web/http_server.h"\n' >"$tmp"/src/metrics/metrics.c
want="src/core/frame.c: local/csvlog.h
src/core/frame.c: detect/trend.h
src/core/frame.c: report/stats.h
src/detect/trend.c: report/host_acc.h
src/metrics/metrics.c: web/http_server.h"
check_eq "layers: an include up a layer is caught" "$want" "$(check_tree "$tmp")"

# The outputs stand side by side: one that includes another's header (the push reading
# the web config, the web server reaching into the CSV writer) is caught, while each
# may include metrics/ below them.
mkdir -p "$tmp"/o/src/push "$tmp"/o/src/web
printf '#include "metrics/metrics.h"\n#include "web/webconfig.h"\n' >"$tmp"/o/src/push/rw_config.c
printf '#include "metrics/metrics.h"\n#include "local/csvlog.h"\n' >"$tmp"/o/src/web/http.c
want="src/push/rw_config.c: web/webconfig.h
src/web/http.c: local/csvlog.h"
check_eq "layers: an include between two outputs is caught" "$want" "$(check_tree "$tmp"/o)"

# The model never includes its encoders: a core/ file that did (core/ring.c once wrote the
# dump's CSV itself) is caught by the core/ spec; this is the case the split is for.
mkdir -p "$tmp"/m/src/core
printf '#include "encode/ring_csv.h"\n' >"$tmp"/m/src/core/ring.c
check_eq "layers: core/ including encode/ is caught" "src/core/ring.c: encode/ring_csv.h" \
	"$(check_tree "$tmp"/m)"

# Calls, not only includes: a function or variable an object of a folder uses is defined
# in that folder or in one it may include (an extern declared below and defined above,
# or in a sibling output, would pass the include check). From the build's objects.
# calls_up BUILD: "src/FOLDER/FILE.o: SYMBOL (defined in FOLDER2/)" per offending use.
calls_up() {
	local build=$1 spec dir o sym d
	declare -A home=()
	for spec in "${SPECS[@]}"; do
		dir=${spec%% *}
		for o in "$build"/src/"$dir"/*.o; do
			[ -f "$o" ] || continue
			while read -r sym; do home[$sym]=$dir; done < <(nm --defined-only -g "$o" | awk '{print $3}')
		done
	done
	for spec in "${SPECS[@]}"; do
		dir=${spec%% *}
		for o in "$build"/src/"$dir"/*.o; do
			[ -f "$o" ] || continue
			while read -r sym; do
				d=${home[$sym]:-}
				[ -z "$d" ] && continue
				case " ${spec#* } " in *" $d "*) continue ;; esac
				echo "${o#"$build"/}: $sym (defined in $d/)"
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
	# And a call between two outputs: an object of web/ that uses a symbol of push/ (while
	# push/ using metrics/ is allowed).
	mkdir -p "$tmp"/s/src/web "$tmp"/s/src/push "$tmp"/s/src/metrics
	printf 'int rw_defined(void);\nint web_fn(void) { return rw_defined(); }\n' >"$tmp"/s/w.c
	printf 'int rw_defined(void) { return 1; }\n' >"$tmp"/s/p.c
	printf 'int metrics_defined(void);\nint rw_fn(void) { return metrics_defined(); }\n' \
		>"$tmp"/s/q.c
	printf 'int metrics_defined(void) { return 1; }\n' >"$tmp"/s/m.c
	cc -c -o "$tmp"/s/src/web/w.o "$tmp"/s/w.c && cc -c -o "$tmp"/s/src/push/p.o "$tmp"/s/p.c &&
		cc -c -o "$tmp"/s/src/push/q.o "$tmp"/s/q.c && cc -c -o "$tmp"/s/src/metrics/m.o "$tmp"/s/m.c
	check_eq "layers: a call between two outputs is caught" \
		"src/web/w.o: rw_defined (defined in push/)" "$(calls_up "$tmp"/s)"
else
	not_ok "layers: no object calls up a layer: $BUILD_DIR is not built"
fi
