#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Hostile input: config files and command lines with garbage. Each is refused with
# exit status 2 and one line naming the problem, before anything is written; no crash
# (the suite runs this under ASan too). tests/integration/daemon.sh covers the plain
# bad option and unknown key; this is the rest.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/faults/helpers.sh"

# refuse NAME PATTERN ARGS...: vigil ARGS exits 2 with one stderr line matching PATTERN.
refuse() {
	local name=$1 pat=$2 err rc
	shift 2
	err=$(timeout 20 "$VIGIL" --no-log --count 1 --quiet "$@" 2>&1 >/dev/null)
	rc=$?
	check_eq "$name: exits 2" 2 "$rc"
	check_eq "$name: one line" 1 "$(printf '%s\n' "$err" | wc -l)"
	if grep -Eq -- "$pat" <<<"$err"; then ok "$name: says why"; else
		not_ok "$name: says why"
		echo "    expected /$pat/, got: $(head -c 300 <<<"$err")"
	fi
}
# conf NAME PATTERN CONTENT (printf format): a config file with CONTENT is refused.
conf() {
	printf "$3" >"$TMP/$1.conf"
	refuse "config $1" "$2" --config "$TMP/$1.conf"
}

refuse "config missing" "config .*/nope.conf: No such file" --config "$TMP/nope.conf"
mkdir -p "$TMP/dir.conf"
refuse "config is a directory" "dir.conf: .*(directory|not a regular file)" --config "$TMP/dir.conf"
mkfifo "$TMP/fifo.conf"
refuse "config is a FIFO (no hang)" "fifo.conf: .*not a regular file" --config "$TMP/fifo.conf"
head -c 4096 /dev/urandom >"$TMP/binary.conf"
refuse "config binary" "binary.conf: line [0-9]+: " --config "$TMP/binary.conf"
conf nul "NUL" 'interval = 1\n\0count = 5\n'
conf nul-in-value "NUL" 'interval = 1\0junk\n'
python3 -c 'print("interval = " + "1" * 1000000)' >"$TMP/huge-line.conf"
refuse "config huge line" "huge-line.conf: line 1: longer than" --config "$TMP/huge-line.conf"
python3 -c 'print("# " + "x" * 1000000); print("interval = 1"); print("nokey = 1")' >"$TMP/huge-comment.conf"
refuse "config huge comment" "huge-comment.conf: line 1: longer than" --config "$TMP/huge-comment.conf"
truncate -s 2M "$TMP/big.conf"
refuse "config over 1 MB" "big.conf: larger than 1 MB" --config "$TMP/big.conf"
conf unknown-section "unknown section \[nope\]" '[nope]\ninterval = 1\n'
conf dup-section "line 4: .*interval" '[vigil]\ninterval = 1\n[vigil]\ninterval = x\n'
conf dup-key "line 2: .*interval" 'interval = 1\ninterval = -1\n'
conf no-equals "line 1: not an INI line" 'interval 1\n'
conf bad-section "line 1: not an INI line" '[vigil\n'
conf empty-value "line 1: .*interval" 'interval =\n'
for kv in "interval=abc" "interval=-1" "interval=0" "interval=1e999" "interval=nan" \
	"interval=inf" "gpu-interval=0.0001" "count=-5" "count=0" \
	"count=99999999999999999999999999" "retention-days=0" "retention-days=1.5" \
	"min-disk-mb=-1" "spike-threshold=x" "temp-crit=1e308" "listen=nonsense" \
	"listen=127.0.0.1:99999" "listen=127.0.0.1:-1" "gpu=x" "gpu=0,,1" "gpu=99999999999" \
	"watch=noequals" "watch==pattern" "profile=nope" "duration=-3" "live=maybe"; do
	conf "value-${kv%%=*}-$(tr -c 'a-z0-9' _ <<<"${kv#*=}")" "line 1: .*${kv%%=*}" "$kv\n"
done

# Every option with a bad value on the command line.
for opt in interval gpu-interval pss-interval count duration spike-threshold inversion-temp \
	inversion-fan spurious-power breach-flag tdp-epsilon temp-warn temp-crit shm-full \
	retention-days min-disk-mb; do
	for v in x -1 1e999 99999999999999999999999 ''; do
		refuse "--$opt '$v'" "$opt" "--$opt" "$v"
	done
done
for a in "--listen nonsense" "--listen 1.2.3.4:0x50" "--gpu none,0" "--watch =x" \
	"--profile nope" "--root" "--interval" "--no-such-option" "--count=" "--nvml" \
	"--config"; do
	# shellcheck disable=SC2086
	refuse "'$a'" "." $a
done
refuse "argument with a NUL-free binary junk" "." "$(head -c 64 /dev/urandom | tr -d '\0')"
refuse "argument with a newline and control bytes" 'x0a' "$(printf 'ab\ncd\001')"
refuse "option value with a newline" "interval: 'x.x0ay'" --interval "$(printf 'x\ny')"
refuse "huge argument" "." "--$(head -c 100000 /dev/zero | tr '\0' x)"
