#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CPU per sample: vigil's whole Raspberry Pi monitor path against the reference
# monitor's sample() (seeds/004_*, monitor_player.py), on this machine, in one run.
#
# - reference: bench/ref_pi_sample.py loads the seed unchanged and times sample() with
#   os.times() (its vcgencmd children included); vcgencmd is tests/fixtures/bin/vcgencmd
#   first on PATH (the formats FACTS.md gives).
# - vigil: bench_pi (build/bench/) = host sources + process watches on this machine's
#   /proc, plus the Pi source on tests/fixtures/pi4-healthy through the fake-firmware
#   transport (one mailbox request per sample) and the detectors; and the vcgencmd
#   fallback on tests/fixtures/pi4-noaccess (children's CPU included).
# - both see the same watched processes: one "player" (run_linux.py) and CHROMIUM
#   "chromium" processes started here (sleepers with those command lines).
# Each figure is repeated REPEAT times; the spread is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build}
PY=${BENCH_PYTHON:-/usr/bin/python3}
REPEAT=${REPEAT:-3}
REF_SAMPLES=${REF_SAMPLES:-150}
CHROMIUM=${CHROMIUM:-6}
. bench/lib.sh
bench_find_seed
if [ -z "$seed" ]; then
	bench_fail "the reference monitor (seeds/004_*.txt) is not found; set SEEDS=DIR"
fi
if ! "$PY" -c 'import psutil' 2>/dev/null; then
	bench_fail "$PY has no psutil (Debian package python3-psutil)"
fi

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
bench_start_watched "$CHROMIUM"

export PATH="$PWD/tests/fixtures/bin:$PATH"
out=$(mktemp -d)
for ((r = 1; r <= REPEAT; r++)); do
	"$B/bench/bench_pi" 10 400 "$PWD/tests/fixtures/pi4-healthy" \
		"$PWD/tests/fixtures/pi4-noaccess" 15 2>/dev/null >"$out/vigil.$r"
	"$PY" bench/ref_pi_sample.py "$seed" "$REF_SAMPLES" >"$out/ref.$r"
done

"$PY" - "$out" "$REPEAT" <<'PY'
import statistics, sys
out, n = sys.argv[1], int(sys.argv[2])
def kv(path):
    d = {}
    for line in open(path):
        k, _, v = line.rstrip('\n').partition(' ')
        d[k] = v
    return d
runs = [(kv(f'{out}/vigil.{r}'), kv(f'{out}/ref.{r}')) for r in range(1, n + 1)]
v0, f0 = runs[0]
print(f"watched processes: player {v0.get('watch_player_count')}, "
      f"chromium {v0.get('watch_chromium_count')} (reference saw {f0['ref_values'].split('chromium_procs=')[1]})")
print(f"vigil mailbox path read: {v0['rpi_mailbox_values']}")
print(f"vigil vcgencmd path read: {v0['rpi_vcgencmd_values']}")
print(f"reference read: {f0['ref_values']}")
for i, (v, f) in enumerate(runs):
    print(f"run {i + 1}: vigil host part by source (us): {v['host_breakdown_us']}; "
          f"command lines read per sample {v['procs_cmdline_reads_per_sample']}")
print(f"reference runs per sample: {f0['ref_spawns_per_sample']} ({f0['ref_spawned']})")
rows = []
for v, f in runs:
    hp, hn = float(v['host_procs_pss_us']), float(v['host_procs_nopss_us'])
    mb, vc = float(v['rpi_mailbox_us']), float(v['rpi_vcgencmd_us'])
    ref, spawn = float(f['ref_sample_ms']) * 1e3, float(f['ref_spawn_ms']) * 1e3
    nsp = int(f['ref_spawns_per_sample'])
    # On a Pi the temperature comes from hwmon: one vcgencmd run fewer than here,
    # where this machine has no hwmon or thermal zone.
    ref_pi = ref - spawn if nsp == 8 else ref
    rows.append(dict(hp=hp, hn=hn, mb=mb, vc=vc, ls=float(v['proc_listing_us']), ref=ref, ref_pi=ref_pi, spawn=spawn,
                     vig=hp + mb, vig_vc=hp + vc))
def col(k):
    xs = [r[k] for r in rows]
    return statistics.median(xs), min(xs), max(xs)
def show(label, k, unit_ms=False):
    m, lo, hi = col(k)
    s = 1e3 if unit_ms else 1
    u = 'ms' if unit_ms else 'us'
    print(f"  {label:<58} {m / s:9.2f} {u}  ({lo / s:.2f}-{hi / s:.2f})")
print(f"CPU per sample, median of {n} runs (min-max):")
show('reference sample() incl. vcgencmd children', 'ref', True)
show('reference, less one vcgencmd run (temp from hwmon on a Pi)', 'ref_pi', True)
show('one vcgencmd run from the reference (subprocess.run)', 'spawn', True)
show('vigil host sources + watches on /proc, PSS every sample', 'hp')
show('vigil host sources + watches, no PSS this sample', 'hn')
show('listing /proc alone (readdir of every entry: the scan floor)', 'ls')
show('vigil Pi source (mailbox, fake firmware) + detectors', 'mb')
show('vigil Pi source, vcgencmd fallback incl. children', 'vc')
show('vigil whole path, mailbox', 'vig')
show('vigil whole path, vcgencmd fallback', 'vig_vc', True)
def ratio(label, a, b, target=None):
    xs = sorted(r[a] / r[b] for r in rows)
    t = f' (target >= {target}x: {"met" if statistics.median(xs) >= target else "MISSED"})' if target else ''
    print(f"  {label:<58} {statistics.median(xs):8.0f}x  ({xs[0]:.0f}-{xs[-1]:.0f}){t}")
print("ratios, reference / vigil:")
ratio('whole path, mailbox', 'ref', 'vig', 100)
ratio('whole path, mailbox, reference as on a Pi', 'ref_pi', 'vig', 100)
ratio('whole path, vcgencmd fallback', 'ref', 'vig_vc')
ratio('vcgencmd fallback / mailbox (vigil Pi source alone)', 'vc', 'mb')
PY
rm -rf "$out"
