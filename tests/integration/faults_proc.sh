#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Hostile input: /proc and /sys under --root where every file vigil could read is
# malformed text, cut short, empty, binary, 100 MB (sparse), a FIFO nobody writes
# (must not hang), a symlink to /dev/zero (endless), or a mix of all of these.
# `vigil --count 3` must exit 0 in bounded time (a 30 s timeout; it needs well under
# 1 s), write rows as wide as the header with the unreadable values as empty cells
# (never a made-up 0), and stay small (peak RSS from its exit line under 20 MB).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/faults/helpers.sh"

asan=0
case "$BUILD_DIR" in *asan*) asan=1 ;; esac

# spoil ROOT KIND: replace every regular file under ROOT with KIND.
spoil() {
	local root=$1 kind=$2 f i=0
	local kinds=(malformed truncated empty binary huge fifo zero)
	while IFS= read -r -d '' f; do
		local k=$kind
		[ "$k" = mixed ] && k=${kinds[$((i % 7))]}
		i=$((i + 1))
		case $k in
		malformed) printf 'cpu  x y z\nMemTotal: lots kB\n-1 1e999 nan\n\x7f%%s%%n\n' >"$f" ;;
		truncated) head -c "$(($(stat -c %s "$f") / 2))" "$f" >"$f.t" && mv "$f.t" "$f" ;;
		empty) : >"$f" ;;
		binary) head -c 4096 /dev/urandom >"$f" ;;
		huge) rm -f "$f" && truncate -s 100M "$f" ;;
		fifo) rm -f "$f" && mkfifo "$f" ;;
		zero) rm -f "$f" && ln -s /dev/zero "$f" ;;
		esac
	done < <(find "$root" -type f -print0)
}

# hostile FIXTURE KIND
hostile() {
	local fx=$1 kind=$2 name="$1-$2" root="$TMP/root-$1-$2" d="$TMP/log-$1-$2"
	cp -a "$FIXTURES/$fx" "$root"
	spoil "$root" "$kind"
	timeout 30 "$VIGIL" --root "$root" --nvml /nonexistent --interval 0.01 --count 3 --quiet \
		--min-disk-mb 0 --log-dir "$d" 2>"$TMP/$name.err"
	local rc=$?
	check_eq "$name: exits 0 in bounded time" 0 $rc
	[ $rc -eq 0 ] || { tail -5 "$TMP/$name.err"; return; }
	local csv out
	csv=$(ls "$d"/host-*.csv)
	check_eq "$name: 3 rows" 3 "$(data_rows "$csv")"
	out=$(csv_whole "$d" 2>"$TMP/$name.csv")
	check "$name: rows as wide as the header ($out)" test ! -s "$TMP/$name.csv"
	cat "$TMP/$name.csv"
	if [ "$kind" != truncated ] && [ "$kind" != mixed ]; then
		check "$name: unreadable values are empty cells, not 0" python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
cols = [c for c in ("cpu_total_pct", "load1", "mem_used_mb", "mem_avail_mb", "temp_c") if c in rows[0]]
bad = [(c, r[rows[0].index(c)]) for r in rows[1:] for c in cols if r[rows[0].index(c)] != ""]
print(bad[:5], file=sys.stderr) if bad else None
sys.exit(bool(bad) or not cols)' "$csv"
	fi
	local rss
	rss=$(sed -n 's/.*peak rss \([0-9]*\) kB.*/\1/p' "$TMP/$name.err")
	if [ $asan -eq 1 ]; then
		ok "$name: peak RSS bounded # skip ASan's shadow memory"
	else
		check "$name: peak RSS ${rss} kB < 20 MB" test "${rss:-999999}" -lt 20480
	fi
}

for fx in x86-server pi4; do
	for kind in malformed truncated empty binary huge fifo zero mixed; do
		hostile "$fx" "$kind"
	done
done
