#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# (Re)write the seed corpora fuzz/corpus/NAME/ from the test fixtures. Seeds are named
# seed-*; inputs kept for a bug found by fuzzing are named crash-* and are left alone.
# Run after a fixture changes; commit the result.
set -euo pipefail
cd "$(dirname "$0")/.."
fx=tests/fixtures
c=fuzz/corpus

seed() { # seed NAME FILE... : copy each distinct file into NAME's corpus
	local name=$1 f sum
	shift
	mkdir -p "$c/$name"
	for f in "$@"; do
		[ -f "$f" ] || continue
		sum=$(sha1sum <"$f" | cut -c1-12)
		cp "$f" "$c/$name/seed-$sum"
	done
}
text() { # text NAME FORMAT [ARG...] : one seed from printf FORMAT ARG...
	local name=$1 tmp
	shift
	tmp=$(mktemp)
	# shellcheck disable=SC2059
	printf "$@" >"$tmp"
	seed "$name" "$tmp"
	rm -f "$tmp"
}
lines() { # lines NAME FILE : one seed per line of FILE
	local l
	while IFS= read -r l; do text "$1" '%s\n' "$l"; done <"$2"
}

rm -f "$c"/*/seed-*

seed proc_stat $fx/*/proc/stat
seed proc_meminfo $fx/*/proc/meminfo
seed proc_values $fx/*/proc/loadavg $fx/*/proc/uptime $fx/*/sys/class/hwmon/hwmon*/temp*_input \
	$fx/*/sys/class/thermal/thermal_zone*/temp $fx/*/sys/devices/system/cpu/cpu0/cpufreq/*_freq
seed procs_parse $fx/procs/proc/1/stat $fx/procs/proc/1/cmdline $fx/procs/proc/1/smaps_rollup \
	$fx/procs/proc/1100/stat $fx/procs/proc/1100/cmdline
text procs_parse '812 (a) b) c) S 1 812 812 0 -1 4194560 1 2 3 4 1500 30 0 0 20 0 7 0 99\n'
seed rpi_values $fx/*/sys/class/drm/card*/device/gpu_stats
for a in "temp=47.2'C" "volt=0.8563V" "frequency(48)=1500398464" "throttled=0x50000"; do
	text rpi_values '%s\n' "$a"
done
lines kmsg_record $fx/kmsg/dev/kmsg
# storage: a first byte (even: a mounts table follows; odd: prio << 1 | 1, a log line)
text storage '\000/dev/mmcblk0p2 / ext4 rw,noatime 0 0\n/dev/sda1 /var/log ext4 ro,relatime 0 0\n/dev/sdb1 /media/usb\\040stick vfat ro 0 0\n'
text storage '\005EXT4-fs error (device mmcblk0p2): ext4_lookup:1601: inode #2: comm systemd'
text storage '\007mmcblk0: error -110 transferring data, sector 4308992, nr 8'
text storage '\007I/O error, dev mmcblk0, sector 4308992 op 0x1:(WRITE) flags 0x800'
grep -h 'Xid' $fx/kmsg/dev/kmsg | while IFS= read -r l; do text xid_line '%s\n' "${l#*;}"; done
seed xid_line $fx/pcie/healthy/sys/devices/*/*/aer_dev_correctable
grep -h 'NVRM\|AER\|SXid\|probe' $fx/kmsg/dev/kmsg | while IFS= read -r l; do text gpu_klog '%s\n' "${l#*;}"; done
text gpu_klog 'NVRM: The NVIDIA GPU 0000:b3:00.0\nNVRM: (PCI ID: 10de:26b5) installed in this system has\nNVRM: fallen off the bus and is not responding to commands.\n'
text gpu_klog 'nvidia-nvswitch2: SXid (PCI:0000:c5:00.0): 28001, OSFP Thermal Warn Activated\n'
text gpu_klog 'NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:667)\n'
text gpu_klog 'NVRM: Timeout after 45s of waiting for RPC response from GPU1 GSP! Expected function 76 (GSP_RM_CONTROL) sequence 9 (0x20801702 0x4).\n'
seed postmortem $fx/postmortem/journal-gsp-crash.txt $fx/postmortem/journal-aer.txt \
	$fx/postmortem/gsp-crash/var/log/kern.log \
	$fx/postmortem/gsp-crash/sys/fs/pstore/dmesg-efi-*
text postmortem 'boot_id=5c1f1a8e-7a43-4d8e-9f55-0e2b1d7f6a10\npid=1234\nstarted_ns=1764770000123456789\nstopped_ns=1764770100456000000\nunclean_killed=2\nunclean_reboot=1\nunclean_unknown=0\nlast_unclean_ns=1764770000123456789\n'
text postmortem 'pid=1234\ngpus=2\ngpu_bus=0000:01:00.0,00000000:41:00.0\n'
seed csv_read $fx/csv/*.csv $fx/csv/clean/*.csv
seed report $fx/csv/*.csv $fx/csv/clean/*.csv
seed scenario tests/nvml-sim/scenarios/*
seed config dist/vigil.conf
text config '[vigil]\ninterval = 0.5\nlisten = 127.0.0.1:9101\n\n[watch]\nchromium = chromium --type=renderer\n'
text webconfig 'basic_auth_users:\n  prometheus: $2y$10$abcdefghijklmnopqrstuuABCDEFGHIJKLMNOPQRSTUVWXYZ01234\n'
text webconfig 'tls_server_config:\n  cert_file: cert.pem\n  key_file: "key.pem"   # comment\nbasic_auth_users:\n  prometheus: "$y$j9T$salt$hash"\n'
text rw_config 'push_interval: 15s\nqueue_max_bytes: 64MiB\ntimeout: 10s\nbasic_auth:\n  username: player\n  password_file: pw\ntls_config:\n  ca_file: ca.pem\n  cert_file: "c.pem"\n  key_file: k.pem\nexternal_labels:\n  site: lobby\n'
text rw_config 'bearer_token_file: token  # comment\nexternal_labels:\n  rack: '"'"'r 1'"'"'\n'
text rw_encode '# HELP up x\n# TYPE up gauge\nup 1\nvigil_gpu_power_watts{gpu="0",uuid="GPU-1"} 231.5\nvigil_x{name="a \\"b\\" {c}"} +Inf\nvigil_y NaN\n'
for a in 'prometheus:secret' 'prometheus:wrong' 'nobody:secret' ':' 'prometheus:secret:more'; do
	text basic_auth '%s' "$a"
done

# gencmd: each fixture's answers as the firmware leaves them in vigil's request buffer
# from word 4 (response word, error word, text), after a byte naming the value.
for f in $fx/*/dev/vcio $fx/*/dev/vcio_gencmd; do
	python3 - "$f" "$c/gencmd_reply" <<'PY'
import hashlib, os, re, struct, sys
values = ["measure_temp", "measure_volts core", "measure_clock arm", "measure_clock core",
          "measure_clock v3d", "measure_clock h264", "measure_clock pixel", None, "get_throttled"]
for line in open(sys.argv[1]):
    m = re.match(r'gencmd (?:err=(\S+) )?"([^"]+)" ?(.*)$', line.rstrip('\n'))
    if not m or m.group(2) not in values:
        continue
    err = int(m.group(1), 0) if m.group(1) else 0
    text = m.group(3).encode() + b'\0'
    blob = bytes([values.index(m.group(2))]) + struct.pack('<II', 0x80000000 | (4 + len(text)), err) + text
    os.makedirs(sys.argv[2], exist_ok=True)
    open(os.path.join(sys.argv[2], 'seed-' + hashlib.sha1(blob).hexdigest()[:12]), 'wb').write(blob)
PY
done

# The mailbox: the firmware's reply to vigil's request for every value, as the fake
# firmware of each Pi fixture answers it (layout: src/collect/rpi_mbox.h).
for f in $fx/*/dev/vcio; do
	python3 - "$f" "$c/mbox_reply" <<'PY'
import hashlib, os, struct, sys
answers = {}
for line in open(sys.argv[1]):
    w = line.split('#')[0].split()
    if len(w) >= 3 and w[0] == 'tag':
        tag = int(w[1], 0)
        if w[2].startswith('id='):
            answers[(tag, int(w[2][3:]))] = [int(w[2][3:]), int(w[3], 0)]
        else:
            answers[(tag, None)] = [int(w[2], 0)]
plan = [(0x30006, 0), (0x30003, 1), (0x30047, 3), (0x30047, 4), (0x30047, 5),
        (0x30047, 6), (0x30047, 9), (0x30004, 3), (0x30046, None)]
words = [0, 0x80000000]
for tag, arg in plan:
    nbuf = 1 if arg is None else 2
    val = answers.get((tag, arg))
    if val is None:
        words += [tag, nbuf * 4, 0] + ([0xffff] if arg is None else [arg, 0])
    else:
        words += [tag, nbuf * 4, 0x80000000 | len(val) * 4] + (val + [0] * nbuf)[:nbuf]
words.append(0)
words[0] = len(words) * 4
blob = struct.pack('<%dI' % len(words), *words)
os.makedirs(sys.argv[2], exist_ok=True)
open(os.path.join(sys.argv[2], 'seed-' + hashlib.sha1(blob).hexdigest()[:12]), 'wb').write(blob)
PY
done
du -sh "$c"
