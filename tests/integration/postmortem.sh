#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The post-mortem across restarts and reboots, end to end on fixture trees:
#   - kill -9, same boot: "vigil was killed", the last rows named, no kernel-log section;
#   - kill -9, then a new boot id under --root: "rebooted", the previous boot's kernel
#     log of a GSP crash (Xid 62, 119, 154, 79) from a journalctl stand-in on PATH,
#     the GPU's PCIe error lines first, then the other important lines, pstore dumps; /metrics, the dashboard and `vigil status`
#     name it;
#   - a journal that is not persistent: the note, then kern.log up to this boot's start;
#   - a Pi browning out: its last rows read as under-voltage now;
#   - a clean stop: no post-mortem, and vigil.state holds the stop marker.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/faults/helpers.sh"
PM="$FIXTURES/postmortem"
export PATH="$PM/bin:$FIXTURES/bin:$PATH" # the journalctl and vcgencmd stand-ins
export PM_JOURNAL=volatile

# root NAME FROM: a copy of fixture tree FROM as $TMP/NAME with a boot id.
root() {
	cp -r "$FIXTURES/$2" "$TMP/$1"
	mkdir -p "$TMP/$1/proc/sys/kernel/random"
	boot "$1"
}
# boot NAME: a new boot: a fresh boot id under $TMP/NAME.
boot() { cat /proc/sys/kernel/random/uuid >"$TMP/$1/proc/sys/kernel/random/boot_id"; }
# killed NAME LOG ARGS...: vigil on $TMP/NAME into LOG until it has written rows of
# every log, then kill -9.
killed() {
	local name=$1 log=$2
	shift 2
	VIGIL_NVML_SCENARIO="$TOP/tests/nvml-sim/scenarios/xid-79-lost-recovered" "$VIGIL" \
		--nvml "$NVML_SIM" --root "$TMP/$name" --interval 0.05 --gpu-interval 0.01 --quiet \
		--min-disk-mb 0 --log-dir "$log" "$@" 2>>"$TMP/$name.err" &
	local pid=$!
	wait_until 20 has_rows "$log"
	sleep 1
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
}
latest() { ls "$1"/postmortem/postmortem-*.log 2>/dev/null | tail -1; }
section() { # section FILE TITLE: the body of "=== TITLE ===" up to the next section
	awk -v t="=== $2 ===" '$0 == t {on = 1; next} /^=== .* ===$/ {on = 0} on && NF' "$1"
}
# last_rows LOG: "NAME: LAST-WHOLE-ROW" for every CSV, as the post-mortem names them.
last_rows() {
	for f in "$1"/*.csv; do
		echo "$(basename "$f"): $(grep -v '^timestamp' "$f" | sed -n '$p')"
	done | sort
}
# named_rows FILE: the rows the post-mortem FILE names as the last ones, sorted.
named_rows() {
	sed -n '/^Last rows:/,/^$/p' "$1" | sed -n 's/^  //p' | sed 's/ (then a partial row)$//' | sort
}
# in_section FILE TITLE PATTERN: a line of the section matches PATTERN (grep).
in_section() { section "$1" "$2" | grep -q "$3"; }
# first_of TEXT A B: in TEXT, the first line matching A comes before the first matching B.
first_of() {
	local a b
	a=$(grep -n "$2" <<<"$1" | head -1 | cut -d: -f1)
	b=$(grep -n "$3" <<<"$1" | head -1 | cut -d: -f1)
	[ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ]
}
# none TEXT PATTERN: no line of TEXT matches.
none() { ! grep -q "$2" <<<"$1"; }

# --- kill -9, same boot ----------------------------------------------------------------
root gpu x86-server
L="$TMP/gpu.log"
killed gpu "$L"
expect=$(last_rows "$L")
# Before the next start: no post-mortem written yet, yet what is known is said.
"$VIGIL" status --log-dir "$L" >"$TMP/pre-status.out" 2>"$TMP/pre-status.err"
check_eq "before the next start: status exits 1 (nothing runs)" 1 $?
check "before the next start: status says no instance runs" grep -q "no running instance writes to $L" "$TMP/pre-status.err"
# (status reads the boot id of the real machine, not of the fixture: the kind may differ)
check "before the next start: status says the last run ended uncleanly" \
	grep -q '^(not written yet: the last run, pid [0-9]*, ended uncleanly' "$TMP/pre-status.out"
check "before the next start: status says how, and when it went quiet" \
	bash -c "grep -q '^End: [a-z]*: ' '$TMP/pre-status.out' && grep -q '^Went quiet: 20' '$TMP/pre-status.out'"
check "before the next start: status says what happened, the Xid 79 in it" \
	grep -q '^  (critical) gpu0: Xid 79 (.*): GPU has fallen off the bus' "$TMP/pre-status.out"
check "before the next start: status names the way to the whole post-mortem" \
	grep -qx "The whole post-mortem: vigil postmortem $L" "$TMP/pre-status.out"
"$VIGIL" postmortem "$L" >"$TMP/pre-pm.out" 2>"$TMP/pre-pm.err"
check_eq "before the next start: vigil postmortem exits 0" 0 $?
check "before the next start: ... says it is not written yet" grep -q '^(not written yet: the last run, pid [0-9]*, ended uncleanly' "$TMP/pre-pm.out"
check "before the next start: ... what happened within its first 40 lines" \
	grep -qx 'What happened:' <<<"$(head -40 "$TMP/pre-pm.out")"
check "before the next start: ... the rows and events follow" \
	grep -q '^=== Last events (events.log) ===$' "$TMP/pre-pm.out"
check "before the next start: ... no post-mortem file written" test -z "$(latest "$L")"
"$VIGIL" --root "$TMP/gpu" --interval 0.05 --count 3 --log-dir "$L" >"$TMP/k.out" 2>"$TMP/k.err"
check_eq "killed: the next run exits 0" 0 $?
f=$(latest "$L")
check "killed: a post-mortem" test -s "$f"
check "killed: how it ended" grep -qx 'End: killed: vigil was killed or crashed (same boot)' "$f"
check "killed: no kernel-log section" bash -c "! grep -q '^=== Kernel' '$f'"
check_eq "killed: the last row of every log named" "$expect" \
	"$(named_rows "$f")"
check "killed: vigil down for seconds" grep -q '^vigil down: [0-9]* s' "$f"
check "killed: last-minute rows" in_section "$f" 'Rows of the last 60 s before the end' '^[0-9]* rows in the last 60 s:'
check "killed: the GPU log's header" in_section "$f" 'Rows of the last 60 s before the end' '^timestamp,gpu_temp,'
check "killed: GPU min/max of the last 10 s" grep -q '^min/max of the last 10 s ([0-9]* rows): gpu_temp [0-9.]*\.\.[0-9.]*; power_instant' "$f"
check "killed: the Xid 79 event with its meaning" in_section "$f" 'Last events (events.log)' 'xid=79 .*meaning="GPU has fallen off the bus"'
check "killed: the crash snapshot listed" in_section "$f" 'Snapshots of the last 10 minutes' '^crashes/crash-'
check "killed: events.log line" grep -q "type=POSTMORTEM end=killed cause=killed quiet=.* file=postmortem/$(basename "$f")" "$L/events.log"
check "killed: its cause under the title" grep -qx 'Cause: killed: vigil killed (the machine ran on), the same boot: vigil alone ended (a signal or its own crash)' "$f"
check "killed: said at start" grep -q "previous run: vigil was killed or crashed (same boot) (quiet since .*); post-mortem: $f" "$TMP/k.err"
# The findings ("What happened") end the exit summary, and the post-mortem is the first.
check "killed: the exit summary's findings lead with it" grep -q \
	"previous run ended uncleanly killed .*vigil was killed or crashed.*post-mortem postmortem/$(basename "$f")" \
	<<<"$(sed -n '/^  What happened:/,$p' "$TMP/k.out" | sed -n 2p)"
check "killed: vigil postmortem prints it" bash -c "'$VIGIL' postmortem '$L' | cmp -s - '$f'"
# The report starts with the health verdict; the previous run's end is the first line
# after it.
check "killed: vigil report leads with it" grep -q "^  previous run: vigil was killed.*post-mortem: .*$(basename "$f")" \
	<<<"$("$VIGIL" report "$L"/host-*.csv 2>&1 | grep -v '^Health: \|^  \(unhealthy\|degraded\|healthy\)' | head -1)"
check "killed: state counts it, stop marker set" \
	bash -c "grep -qx unclean_killed=1 '$L/vigil.state' && grep -q '^stopped_ns=[0-9]' '$L/vigil.state'"

# --- a clean stop: nothing to examine ----------------------------------------------------
n=$(ls "$L"/postmortem | wc -l)
"$VIGIL" --root "$TMP/gpu" --interval 0.05 --count 2 --quiet --log-dir "$L" 2>"$TMP/c.err"
check_eq "clean: no new post-mortem" "$n" "$(ls "$L"/postmortem | wc -l)"
check "clean: nothing said" bash -c "! grep -q 'previous run' '$TMP/c.err'"

# --- kill -9, then the machine reboots: the journal of a GSP crash -----------------------
cp -r "$PM/gsp-crash/." "$TMP/gpu/"
killed gpu "$L"
expect=$(last_rows "$L")
# The kernel writes its panic record at the crash, after the run began (pstore's time).
touch "$TMP"/gpu/sys/fs/pstore/dmesg-*
boot gpu
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
PM_JOURNAL="$PM/journal-gsp-crash.txt" PM_JOURNAL_ARGS="$TMP/jargs" "$VIGIL" --root "$TMP/gpu" \
	--interval 0.05 --quiet --log-dir "$L" --listen "127.0.0.1:$PORT" 2>"$TMP/r.err" &
pid=$!
# scraped: once a frame is published (an earlier scrape has no counters yet)
scraped() { curl -sf "http://127.0.0.1:$PORT/metrics" -o "$TMP/metrics" && grep -q '^vigil_samples_total{source="host"} [1-9]' "$TMP/metrics"; }
wait_until 20 scraped
curl -sf "http://127.0.0.1:$PORT/" -o "$TMP/page.html"
"$VIGIL" status --log-dir "$L" >"$TMP/status.txt" 2>&1
kill "$pid"
wait "$pid"
check_eq "reboot: clean exit" 0 $?
f=$(latest "$L")
check "reboot: how it ended" grep -qx 'End: reboot: the machine rebooted or lost power under vigil (another boot)' "$f"
check "reboot: machine down for (or unknown, never negative)" \
	grep -Eq '^Machine down: ([0-9]+ s \(from the last row to this boot\)|unknown \(the last row is [0-9]+ s after this boot began: the clock or the uptime is inconsistent\))$' "$f"
check_eq "reboot: the cause is the line under the title" \
	'Cause: panic: kernel panic, /sys/fs/pstore/dmesg-efi-176473091201001: Kernel panic - not syncing: softlockup: hung tasks' \
	"$(sed -n 2p "$f")"
check "reboot: /metrics says why the last run ended" grep -qx 'vigil_last_end{cause="panic"} 1' "$TMP/metrics"
check "reboot: /metrics, the other causes 0" grep -qx 'vigil_last_end{cause="power_cut_or_hang"} 0' "$TMP/metrics"
check "reboot: the dashboard names the cause" grep -q "cause panic: the machine rebooted" "$TMP/page.html"
check "reboot: vigil status names the cause" grep -q "cause panic: the machine rebooted" "$TMP/status.txt"
check "reboot: this boot's uptime" grep -q '^This boot: id [0-9a-f-]\{36\}, up [0-9]* s' "$f"
check_eq "reboot: the last rows named" "$expect" \
	"$(named_rows "$f")"
check_eq "reboot: journalctl asked for the previous boot's kernel log, bounded" \
	"-k -b -1 -n 5000 --no-pager -o short-iso" "$(cat "$TMP/jargs")"
kl=$(section "$f" 'Kernel log of the previous boot')
check "reboot: the journal used" grep -q '^journal: journalctl -k -b -1 -n 5000' <<<"$kl"
imp=$(sed -n '/^Important lines/,/^Last [0-9]* lines:/p' <<<"$kl")
for x in 62 45 119 154 79; do
	check "reboot: Xid $x among the important lines" grep -q "NVRM: Xid (PCI:0000:01:00): $x, .*\[Xid $x: " <<<"$imp"
done
check "reboot: Xid 79 with its meaning" grep -q '\[Xid 79: GPU has fallen off the bus\]' <<<"$imp"
aer=$(sed -n '/^PCIe errors (AER) of the GPUs/,/^Important lines/p' <<<"$kl")
check "reboot: the GPU's PCIe errors first, by its device from vigil.state" \
	first_of "$kl" '^PCIe errors (AER) of the GPUs. devices (0000:01:00.0): 2 lines$' '^Important lines'
check "reboot: its port's AER line among them" grep -q 'pcieport 0000:00:01.0: AER: Uncorrected (Fatal) error received: 0000:01:00.0' <<<"$aer"
check "reboot: its own PCIe Bus Error line among them" grep -q 'nvidia 0000:01:00.0: PCIe Bus Error: severity=Uncorrected (Fatal)' <<<"$aer"
check "reboot: not again among the important lines" none "$imp" 'AER: Uncorrected (Fatal)'
check "reboot: thermal among the important lines" grep -q 'Core temperature above threshold' <<<"$imp"
check "reboot: ordinary lines not important" none "$imp" 'usb 1-2\|e1000e'
check "reboot: important lines before the tail" first_of "$kl" '^Important lines' '^Last [0-9]* lines:'
check_eq "reboot: the tail ends with the last line" "Under memory pressure, flushing caches." \
	"$(tail -1 <<<"$kl" | sed 's/.*: //')"
ps=$(section "$f" 'Kernel crash dumps (pstore)')
check "reboot: pstore panic dump" grep -q 'Kernel panic - not syncing: softlockup' <<<"$ps"
check "reboot: systemd-pstore archive" grep -q 'var/lib/systemd/pstore/1764730912/dmesg-efi-176473091201002' <<<"$ps"
check "reboot: events.log line" grep -q 'type=POSTMORTEM end=reboot' "$L/events.log"
check_eq "reboot: /metrics counts unclean ends by kind" 'vigil_unclean_ends_total{kind="killed"} 1
vigil_unclean_ends_total{kind="reboot"} 1
vigil_unclean_ends_total{kind="unknown"} 0' "$(grep '^vigil_unclean_ends_total' "$TMP/metrics")"
check "reboot: /metrics says how the last run ended" grep -qx 'vigil_previous_run_end{kind="reboot"} 1' "$TMP/metrics"
check "reboot: the dashboard names it" grep -q "previous run: the machine rebooted or lost power.*post-mortem: .*$(basename "$f")" "$TMP/page.html"
check "reboot: vigil status names it" grep -q "^previous run: the machine rebooted or lost power.*$(basename "$f")" "$TMP/status.txt"

# --- a volatile journal: the note, then kern.log up to this boot's start -----------------
killed gpu "$L"
boot gpu
"$VIGIL" --root "$TMP/gpu" --interval 0.05 --count 2 --quiet --log-dir "$L" 2>"$TMP/v.err"
f=$(latest "$L")
kl=$(section "$f" 'Kernel log of the previous boot')
check "volatile journal: one line says so" grep -q '^journal: no kernel log of the previous boot (journal not persistent?): .*no persistent journal was found' <<<"$kl"
check "kern.log: the previous boot's Xid 119" grep -q 'Xid (PCI:0000:01:00): 119, .*\[Xid 119: ' <<<"$kl"
check "kern.log: the ext4 error is important" grep -q 'EXT4-fs error' <<<"$(sed -n '/^Important lines/,/^Last/p' <<<"$kl")"
check "kern.log: kern.log.1 read first" grep -q 'NIC Link is Down' <<<"$kl"
check "kern.log: nothing of this boot" none "$kl" 'Dec  3 09:00'
check_eq "state: every unclean end counted" "1 2" \
	"$(sed -n 's/^unclean_killed=//p' "$L/vigil.state") $(sed -n 's/^unclean_reboot=//p' "$L/vigil.state")"

# --- the previous boot began before the last rotation: its start is in kern.log.2.gz ----
# (logrotate with delaycompress: kern.log, kern.log.1, kern.log.2.gz, ...)
killed gpu "$L"
boot gpu
lg="$TMP/gpu/var/log"
cp "$lg/kern.log.1" "$TMP/kern.log.1.orig"
{
	echo 'Nov 20 08:00:00 gpu-host kernel: [    0.000000] Linux version 6.8.0-40-generic (an older boot)'
	echo 'Nov 20 08:00:01 gpu-host kernel: [    1.000000] a line of an OLDER BOOT only'
	echo 'Nov 25 10:00:00 gpu-host kernel: [    0.000000] Linux version 6.8.0-45-generic (the previous boot)'
	echo 'Nov 25 10:00:05 gpu-host kernel: [    5.000000] the PREVIOUS BOOT BEGAN here'
} | gzip >"$lg/kern.log.2.gz"
grep -v 'Linux version' "$TMP/kern.log.1.orig" >"$lg/kern.log.1"
"$VIGIL" --root "$TMP/gpu" --interval 0.05 --count 2 --quiet --log-dir "$L" 2>"$TMP/gz.err"
f=$(latest "$L")
kl=$(section "$f" 'Kernel log of the previous boot')
check "kern.log.2.gz: read, inflated" grep -q '^/var/log/kern.log.2.gz: [1-9][0-9]* bytes read from its end' <<<"$kl"
check "kern.log.2.gz: the previous boot's start" grep -q 'the PREVIOUS BOOT BEGAN here' <<<"$kl"
check "kern.log.2.gz: the previous boot's Xid 119 (kern.log.1)" grep -q 'Xid (PCI:0000:01:00): 119, ' <<<"$kl"
check "kern.log.2.gz: an older boot left out" none "$kl" 'OLDER BOOT'
check "kern.log.2.gz: nothing of this boot" none "$kl" 'Dec  3 09:00'
mv "$TMP/kern.log.1.orig" "$lg/kern.log.1"
rm -f "$lg/kern.log.2.gz"

# --- a Pi browning out: under-voltage now in its last rows -------------------------------
root pi pi4-undervolt
P="$TMP/pi.log"
"$VIGIL" --root "$TMP/pi" --interval 0.05 --quiet --log-dir "$P" 2>"$TMP/pi.err" &
pid=$!
wait_until 20 has_rows "$P"
sleep 0.5
kill -9 "$pid"
wait "$pid" 2>/dev/null
boot pi
PM_JOURNAL=hang PM_JOURNAL_PID="$TMP/jpid" "$VIGIL" --root "$TMP/pi" --interval 0.05 --count 2 --quiet --log-dir "$P" 2>"$TMP/pi2.err"
check_eq "pi: a journal that hangs: vigil runs on" 0 $?
f=$(latest "$P")
check "pi: rebooted" grep -q '^End: reboot' "$f"
check "pi: the last throttled word, voltage and temperature" \
	grep -q '^Raspberry Pi, last row: throttled=0x50005 volt_core_v=[0-9.]* temp_c=[0-9.]* flags="NOW:under-voltage' "$f"
check "pi: under-voltage now" grep -q '^UNDER-VOLTAGE NOW in the last row' "$f"
check "pi: journalctl bounded in time: one line" grep -q '^journal: journalctl -k -b -1 did not finish within 10 s: killed' "$f"
check "pi: no kern.log: one line" grep -q '^/var/log/kern.log: No such file or directory' "$f"
check "pi: the hanging journalctl was killed and reaped" bash -c "[ -s '$TMP/jpid' ] && ! kill -0 \$(cat '$TMP/jpid') 2>/dev/null"
check "pi: no pstore dump: one line" grep -q '^none (/sys/fs/pstore and /var/lib/systemd/pstore hold no dump)' "$f"

# --- no boot id to compare: "unknown", and the kernel log is read ------------------------
cp -r "$FIXTURES/x86-server" "$TMP/nobootid"
U="$TMP/nobootid.log"
killed nobootid "$U"
"$VIGIL" --root "$TMP/nobootid" --interval 0.05 --count 2 --quiet --log-dir "$U" 2>"$TMP/u.err"
f=$(latest "$U")
check "no boot id: unknown end" grep -q '^End: unknown: vigil ended uncleanly (boot id unknown' "$f"
check "no boot id: the kernel-log section" grep -q '^=== Kernel log of the previous boot ===' "$f"
check "no boot id: state counts it" grep -qx 'unclean_unknown=1' "$U/vigil.state"

# --- vigil postmortem with none there --------------------------------------------------
mkdir -p "$TMP/empty"
"$VIGIL" postmortem "$TMP/empty" >"$TMP/none.out" 2>"$TMP/none.err"
check_eq "none: vigil postmortem exits 1" 1 $?
check "none: says so" grep -q "^vigil: no post-mortem in $TMP/empty/postmortem" "$TMP/none.err"
