#!/usr/bin/env bash
# Resident memory of 3-second runs in the configurations people deploy: VmRSS half way
# (steady state, after the scrapes where there are some) and VmHWM, the peak over the
# run. Target: host + 1 GPU under 4 MB. VIGIL_BEFORE=BINARY adds the same figures for another build, measured in the
# same run.
B=${BUILD:-build}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/vigil-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
HASH='$2y$04$.Qxt8yuSV/wxOU0vEMzyfOJ5nmV.nzTand17tx1Iw852NHdE5LsQG' # "secret", cost 4
printf 'basic_auth_users:\n  prometheus: %s\ntls_server_config:\n  cert_file: %s\n  key_file: %s\n' \
	"$HASH" "$PWD/tests/fixtures/tls/cert.pem" "$PWD/tests/fixtures/tls/key.pem" >"$TMP/web.yml"
VIGIL_NVML_SCENARIO=$PWD/tests/nvml-sim/scenarios/healthy-1gpu \
	python3 - "$B/vigil" "${VIGIL_BEFORE:-}" "$TMP" "$B/nvml-sim/libnvidia-ml.so.1" <<'PY'
import base64, re, socket, ssl, subprocess, sys, time, urllib.request

vigil, before, tmp, nvml = sys.argv[1:5]
auth = "Basic " + base64.b64encode(b"prometheus:secret").decode()
insecure = ssl.create_default_context()
insecure.check_hostname = False
insecure.verify_mode = ssl.CERT_NONE

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    return s.getsockname()[1]

def vm(pid, key):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(rf"^{key}:\s+(\d+)", f.read(), re.M)[1])

def run(binary, args, scheme):
    """(steady VmRSS kB, peak VmHWM kB, GPU samples) of one 3 s run."""
    url = None
    if scheme:
        port = free_port()
        args = args + ["--listen", f"127.0.0.1:{port}"]
        url = f"{scheme}://127.0.0.1:{port}/metrics"
    err = open(f"{tmp}/err", "w+")
    p = subprocess.Popen([binary, "--quiet", "--duration", "3"] + args, stderr=err)
    start, steady, peak = time.monotonic(), None, 0
    # VmHWM is this exec's own high-water mark (wait4's ru_maxrss would count the
    # forked python before exec): poll it until the process is gone.
    while p.poll() is None:
        try:
            peak = max(peak, vm(p.pid, "VmHWM"))
            if steady is None and time.monotonic() - start >= 1.5:
                for enc in ("gzip", "identity") if url else ():
                    req = urllib.request.Request(url, headers={"Accept-Encoding": enc, "Authorization": auth})
                    urllib.request.urlopen(req, context=insecure if scheme == "https" else None).read()
                steady = vm(p.pid, "VmRSS")
        except (FileNotFoundError, ProcessLookupError, TypeError):
            pass
        time.sleep(0.02)
    err.seek(0)
    m = re.search(r"(\d+) GPU samples", err.read())
    if p.returncode != 0:
        sys.exit(f"{binary} {' '.join(args)}: exit status {p.returncode}")
    return steady, peak, int(m[1]) if m else 0

configs = [
    ("host, --no-log", ["--no-log"], None),
    ("host, CSV logs", ["--log-dir", f"{tmp}/log"], None),
    ("Raspberry Pi 4 fixture, --no-log", ["--no-log", "--root", "tests/fixtures/pi4-healthy"], None),
    ("host + 1 simulated GPU, --no-log", ["--no-log", "--nvml", nvml], None),
    ("host, --listen, 2 scrapes", ["--no-log"], "http"),
    ("host, --listen TLS + basic auth, 2 scrapes", ["--no-log", "--web-config", f"{tmp}/web.yml"], "https"),
]
mb = lambda kb: f"{kb / 1024:.2f}"
print(f"{'configuration':50} {'VmRSS':>6} {'peak':>6}" + (f" {'before: VmRSS':>13} {'peak':>6}" if before else "") + "  (MB)")
for name, args, scheme in configs:
    steady, peak, gpus = run(vigil, args, scheme)
    if "GPU" in name and gpus == 0:
        name += " (no GPU source)"
    line = f"{name:50} {mb(steady):>6} {mb(peak):>6}"
    if before:
        s0, p0, _ = run(before, args, scheme)
        line += f" {mb(s0):>13} {mb(p0):>6}"
    print(line)
print("target: host + 1 GPU under 4 MB")
PY
