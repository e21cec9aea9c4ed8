#!/usr/bin/env bash
# Folders are layers (HACKING.md, "Folders and what each may include"): a file in a lower
# folder includes headers of its own folder and the ones below it, never a higher one's.
# The lower layers are checked here: util/, core/, collect/ and detect/.
. "$(dirname "$0")/../lib.sh"

# The one include across the layers that is known and still to be removed (HACKING.md
# names it): the leak trends read the report's accumulators.
known_exception() { # known_exception FILE HEADER
	case "$1:$2" in
	src/detect/trend.c:report/host_acc.h | src/detect/trend.c:report/watch_acc.h) return 0 ;;
	esac
	return 1
}

# layer FOLDER ALLOWED...: every project header a file of src/FOLDER includes lives in
# one of the ALLOWED folders. Prints each offending "file: header" line.
layer() {
	local dir=$1 f line hdr top bad=""
	shift
	for f in "$TOP"/src/"$dir"/*.[ch]; do
		[ -f "$f" ] || continue
		while IFS= read -r line; do
			hdr=${line#*\"}
			hdr=${hdr%%\"*}
			top=${hdr%%/*}
			[ "$top" = "$hdr" ] && continue # same-folder include without a folder
			case " $* " in *" $top "*) continue ;; esac
			known_exception "src/$dir/${f##*/}" "$hdr" && continue
			bad+="src/$dir/${f##*/}: $hdr"$'\n'
		done < <(grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f")
	done
	printf '%s' "$bad"
}

for spec in "util util" "core util core" "collect util core collect" \
	"detect util core collect detect"; do
	# shellcheck disable=SC2086 # word splitting of spec is intended
	out=$(layer $spec)
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
	"$TOP"/src/detect/*.[ch] 2>/dev/null)
check_eq "layers: no sink/ header below sink/" "" "$out"
