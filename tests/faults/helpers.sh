# SPDX-License-Identifier: Apache-2.0
# Helpers for the faults_*.sh integration tests (sourced after tests/lib.sh).

# is_root: the test may mount, chown and switch users.
is_root() { [ "$(id -u)" -eq 0 ]; }

# build_shim: compile tests/faults/shim.c into $TMP/shim.so (LD_PRELOAD fault injection).
build_shim() {
	cc -shared -fPIC -O1 -o "$TMP/shim.so" "$TOP/tests/faults/shim.c" -ldl
}
# With the ASan build the runtime must not insist on coming first.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

# wait_until SECONDS COMMAND...: poll (every 0.1 s) until COMMAND succeeds; 1 on timeout.
wait_until() {
	local end=$((SECONDS + $1))
	shift
	while ! "$@" 2>/dev/null; do
		[ $SECONDS -ge $end ] && return 1
		sleep 0.1
	done
}

# more_than N COMMAND...: COMMAND prints a number greater than N (for wait_until, which
# re-runs it each poll; a "$(...)" in wait_until's arguments would be evaluated once).
more_than() {
	local n=$1
	shift
	[ "$("$@")" -gt "$n" ]
}

# host_samples PID ERRFILE: ask vigil (SIGUSR1) for its status on stderr and print the
# host sample count of the newest status.
host_samples() {
	local before
	before=$(grep -c '^samples: host' "$2")
	kill -USR1 "$1"
	wait_until 10 more_than "$before" grep -c '^samples: host' "$2" || { echo 0; return; }
	grep '^samples: host' "$2" | tail -1 | sed 's/^samples: host \([0-9]*\),.*/\1/'
}

# csv_whole DIR [GLOB]: every *.csv (or GLOB) in DIR is whole: the first row is the header, no other row
# is a header, every row has the header's cell count, the file ends with a newline and
# holds no NUL byte. Prints "FILES ROWS" (data rows in all); problems on stderr, status 1.
csv_whole() {
	python3 - "$1" "${2:-*.csv}" <<'PY'
import csv, glob, os, sys
bad, files, rows = 0, 0, 0
for p in sorted(glob.glob(os.path.join(sys.argv[1], sys.argv[2]))):
    files += 1
    data = open(p, "rb").read()
    if not data:
        continue
    if b"\0" in data or not data.endswith(b"\n"):
        print(f"{p}: NUL byte or no final newline", file=sys.stderr); bad = 1; continue
    try:
        text = data.decode()
    except UnicodeDecodeError as e:
        print(f"{p}: not UTF-8 text: {e}", file=sys.stderr); bad = 1; continue
    if any(ord(c) < 32 and c not in "\n" for c in text):
        print(f"{p}: control character in a cell", file=sys.stderr); bad = 1
    r = list(csv.reader(text.splitlines()))
    if r[0][0] != "timestamp":
        print(f"{p}: first row is not the header: {r[0][:3]}", file=sys.stderr); bad = 1
    for i, row in enumerate(r[1:], 2):
        if row == r[0]:
            print(f"{p}:{i}: header repeated", file=sys.stderr); bad = 1
        elif len(row) != len(r[0]):
            print(f"{p}:{i}: {len(row)} cells, header has {len(r[0])}", file=sys.stderr); bad = 1
    rows += len(r) - 1
print(files, rows)
sys.exit(bad)
PY
}

# data_rows FILE...: data rows (lines that are not the header) in the files.
data_rows() { cat "$@" 2>/dev/null | grep -vc '^timestamp'; }
# has_rows DIR: DIR holds a host CSV with a data row.
has_rows() { [ "$(data_rows "$1"/host-*.csv)" -gt 0 ]; }
