#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The machine's identity (collect/hw_identity.h): which hardware source names it on the
# fixture trees, vigil_machine_info, the warning when the state file recorded the same
# machine ID on other hardware (a cloned disk image), and two clones pushing into a real
# Prometheus as two series, told apart by hardware_id.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/prometheus/lib.sh"

if [ ! -x "$VIGIL" ]; then
	echo "# skip: $VIGIL is not built"
	exit 0
fi

# info ROOT: the vigil_machine_info line vigil serves on ROOT.
info() {
	local port
	port=$(free_port)
	"$VIGIL" --no-log --quiet --root "$1" --listen "127.0.0.1:$port" --interval 0.2 --duration 10 \
		2>/dev/null &
	local pid=$!
	for _ in $(seq 50); do
		out=$(curl -s "http://127.0.0.1:$port/metrics" 2>/dev/null)
		grep -q '^vigil_samples_total{source="host"} [1-9]' <<<"$out" && break
		sleep 0.1
	done
	kill -TERM "$pid"
	wait "$pid"
	grep '^vigil_machine_info' <<<"$out"
}

check_eq "pi4: the SoC's serial from the device tree" \
	'vigil_machine_info{hardware_id="10000000a1b2c3d4",hardware_id_source="rpi_serial"} 1' \
	"$(info "$FIXTURES/pi4")"
check_eq "x86-server: DMI's product UUID" \
	'vigil_machine_info{hardware_id="4c4c4544-0048-3510-8052-b4c04f4a3732",hardware_id_source="dmi_product_uuid"} 1' \
	"$(info "$FIXTURES/x86-server")"

# A board whose firmware left the UUID unset: its serial.
cp -a "$FIXTURES/x86-server" "$TMP/oem"
echo 03000200-0400-0500-0006-000700080009 >"$TMP/oem/sys/class/dmi/id/product_uuid"
check_eq "placeholder UUID: DMI's product serial" \
	'vigil_machine_info{hardware_id="h5rj2y2",hardware_id_source="dmi_product_serial"} 1' "$(info "$TMP/oem")"
# No DMI the service may read (product_uuid and the serials are root-only): the NIC.
rm -r "$TMP/oem/sys/class/dmi"
check_eq "no DMI: the NIC's permanent address" \
	'vigil_machine_info{hardware_id="b0:26:28:1a:2b:3c",hardware_id_source="mac"} 1' "$(info "$TMP/oem")"
# A Pi kernel without the device tree's serial: /proc/cpuinfo's Serial line.
cp -a "$FIXTURES/pi4" "$TMP/pi-old"
rm "$TMP/pi-old/sys/firmware/devicetree/base/serial-number" "$TMP/pi-old/proc/device-tree/serial-number"
printf 'processor\t: 0\nBogoMIPS\t: 108.00\n\nHardware\t: BCM2835\nRevision\t: c03114\nSerial\t\t: 10000000e5f60718\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n' \
	>"$TMP/pi-old/proc/cpuinfo"
check_eq "no device-tree serial: /proc/cpuinfo's Serial" \
	'vigil_machine_info{hardware_id="10000000e5f60718",hardware_id_source="rpi_serial"} 1' \
	"$(info "$TMP/pi-old")"

# ---- a cloned image: the state file came with it ----
ID=4d3b0c0e8a7e4e2f9a1c0b5e6d7f8091
cp -a "$FIXTURES/pi4" "$TMP/pi"
mkdir -p "$TMP/pi/etc"
echo "$ID" >"$TMP/pi/etc/machine-id"
run() { "$VIGIL" --quiet --count 2 --interval 0.05 --root "$TMP/pi" --log-dir "$TMP/logs" 2>"$TMP/err" >/dev/null; }
run
check "the state file records the machine ID" grep -qx "machine_id=$ID" "$TMP/logs/vigil.state"
check "the state file records the hardware" grep -qx "hardware_id=10000000a1b2c3d4" "$TMP/logs/vigil.state"
run
check "same machine, same hardware: no clone warning" bash -c "! grep -q 'looks cloned' '$TMP/err'"
printf '10000000deadbeef\0' >"$TMP/pi/sys/firmware/devicetree/base/serial-number"
run
check "same machine ID on another SoC: warned at start" \
	grep -q "machine ID $ID looks cloned: $TMP/logs/vigil.state recorded it on hardware 10000000a1b2c3d4, this machine is 10000000deadbeef (rpi_serial).*systemd-machine-id-setup" "$TMP/err"
run
check "the warning comes back at the next start" grep -q "looks cloned" "$TMP/err"
echo 0f0e0d0c0b0a09080706050403020100 >"$TMP/pi/etc/machine-id"
run
check "a new machine ID: no warning" bash -c "! grep -q 'looks cloned' '$TMP/err'"
check "and the state file records the new pair" grep -qx "hardware_id=10000000deadbeef" "$TMP/logs/vigil.state"

# ---- two clones pushing: one machine ID, one host name, two SoCs ----
if ! have_prometheus; then
	echo "# skip: prometheus missing"
	exit 0
fi
PORT=$(free_port)
printf 'global:\n  scrape_interval: 1s\n' >"$TMP/prom.yml"
if ! prom_start id "$PORT" "$TMP/prom.yml" "$TMP/prom-data" --web.enable-remote-write-receiver; then
	not_ok "clones: prometheus starts"
	exit 0
fi
SERIALS=(10000000a1b2c3d4 10000000deadbeef)
PIDS=()
for i in 0 1; do
	cp -a "$FIXTURES/pi4" "$TMP/clone$i"
	mkdir -p "$TMP/clone$i/etc"
	echo "$ID" >"$TMP/clone$i/etc/machine-id"
	printf '%s\0' "${SERIALS[$i]}" >"$TMP/clone$i/sys/firmware/devicetree/base/serial-number"
	printf 'push_interval: 0.5s\ntimeout: 3s\nexternal_labels:\n  site: clones\n  instance: raspberrypi\n' >"$TMP/clone$i.yml"
	"$VIGIL" --root "$TMP/clone$i" --interval 0.5 --quiet --log-dir "$TMP/clone$i.log" \
		--remote-write "http://127.0.0.1:$PORT/api/v1/write" --remote-write-config "$TMP/clone$i.yml" \
		2>"$TMP/clone$i.err" &
	PIDS+=($!)
done
SEL="vigil_samples_total{source=\"host\",site=\"clones\",machine_id=\"$ID\"}"
two() { [ "$(pq "$PORT" count "$SEL" 2>/dev/null)" = 2 ]; }
wait_two() { for _ in $(seq 150); do two && return 0; sleep 0.2; done; return 1; }
check "clones: one series per SoC, though machine_id and host name are one" wait_two
for i in 0 1; do
	check_eq "clones: machine $i's series carries its hardware_id" 1 \
		"$(pq "$PORT" count "vigil_samples_total{source=\"host\",hardware_id=\"${SERIALS[$i]}\"}")"
	kill -TERM "${PIDS[$i]}"
	wait "${PIDS[$i]}"
done
prom_stop "$PROM_PID"
