#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Raspberry Pi path end to end: fake firmware (ROOT/dev/vcio and ROOT/dev/vcio_gencmd
# as description files), gencmd first, property tags, sysfs and vcgencmd fallbacks, host
# CSV cells in the reference formats, events.log.
. "$(dirname "$0")/../lib.sh"
export PATH="$FIXTURES/bin:$PATH" # the fake vcgencmd

run() { # run TREE [COUNT] [ROOT]: samples into $TMP/TREE
	"$VIGIL" --root "${3:-$FIXTURES/$1}" --count "${2:-2}" --interval 0.05 --log-dir "$TMP/$1" --quiet 2>"$TMP/$1.err"
	CSV=$(ls "$TMP/$1"/host-*.csv)
	EV="$TMP/$1/events.log"
}
cell() { csv_cell "$CSV" 1 "$1"; }

run pi4-healthy
check_eq "healthy: firmware columns" "47.7 0.8563 1500.398464 500.000992 500.000992 75.001464 0.0" \
	"$(echo $(cell temp_c) $(cell volt_core_v) $(cell arm_mhz) $(cell core_mhz) $(cell v3d_mhz) $(cell pixel_mhz) $(cell h264_mhz))"
check_eq "healthy: throttled_raw" 0x0 "$(cell throttled_raw)"
check_eq "healthy: no flags" "" "$(cell throttle_flags)"
check "healthy: no throttle events" bash -c "! grep -q RPI_THROTTLE '$EV'"

run pi4-undervolt
check_eq "undervolt: throttled_raw like hex()" 0x50005 "$(cell throttled_raw)"
check_eq "undervolt: flags in the reference's order and labels" \
	"NOW:under-voltage,NOW:currently throttled,HAS:under-voltage occurred,HAS:throttling occurred" \
	"$(cell throttle_flags)"
check "undervolt: flags cell is CSV-quoted" grep -q ',"NOW:under-voltage,NOW:currently throttled,HAS' "$CSV"
check "undervolt: since-boot headline at start" grep -q 'under-voltage occurred since boot' "$TMP/pi4-undervolt.err"
check "undervolt: history in events.log" grep -q 'type=RPI_THROTTLE_HISTORY throttled=0x50005' "$EV"
check "undervolt: transition with temp, volt and clock" \
	grep -Eq 'type=RPI_THROTTLE condition="under-voltage" state=set throttled=0x50005 temp=[0-9.]+C volt=0.8000V arm=600MHz' "$EV"
check_eq "undervolt: one transition line per condition" 1 "$(grep -c 'condition="under-voltage" state=set' "$EV")"

run pi4-shm-full
check "shm full: event" grep -q 'type=SHM state=full used=95.1%' "$EV"

run pi5
check_eq "pi5: sticky soft-temperature bit" 0x80000 "$(cell throttled_raw)"
check_eq "pi5: flag" "HAS:soft temperature limit occurred" "$(cell throttle_flags)"
check_eq "pi5: gencmd columns (H264 0 Hz, V3D idle 0)" "0.72 2400.033792 910.007552 0.0 0.0 107.999" \
	"$(echo $(cell volt_core_v) $(cell arm_mhz) $(cell core_mhz) $(cell v3d_mhz) $(cell h264_mhz) $(cell pixel_mhz))"
check_eq "pi5: the kernel's request stays in arm_cur_mhz_cfg" 2400.0 "$(cell arm_cur_mhz_cfg)"
check "pi5: no firmware warning" bash -c "! grep -q 'Raspberry Pi firmware' '$TMP/pi5.err'"

# Current Pi OS: /dev/vcio root-only, /dev/vcio_gencmd for video; gencmd reaches all.
run pi4-current
check_eq "current OS: gencmd columns" "0.8563 1500.398464 500.000992 500.000992 75.001464 0.0 0x0" \
	"$(echo $(cell volt_core_v) $(cell arm_mhz) $(cell core_mhz) $(cell v3d_mhz) $(cell pixel_mhz) $(cell h264_mhz) $(cell throttled_raw))"
check "current OS: no firmware warning" bash -c "! grep -q 'Raspberry Pi firmware' '$TMP/pi4-current.err'"

# Under-voltage at boot, fine since: gencmd's word keeps it (the tag's has lost it).
run pi4-bootuv
check_eq "boot under-voltage: throttled_raw" 0x50000 "$(cell throttled_raw)"
check_eq "boot under-voltage: HAS flags" "HAS:under-voltage occurred,HAS:throttling occurred" "$(cell throttle_flags)"
check "boot under-voltage: since-boot line at start" grep -q 'under-voltage occurred since boot' "$TMP/pi4-bootuv.err"
check "boot under-voltage: history in events.log" grep -q 'type=RPI_THROTTLE_HISTORY throttled=0x50000' "$EV"

# Pi 3 B+, warm: the measured ARM clock under cpufreq's 1.4 GHz, confirmed over 3 samples.
run pi3 4
check_eq "pi3: measured arm_mhz, request in arm_cur_mhz_cfg" "1200.002 1400.0" "$(echo $(cell arm_mhz) $(cell arm_cur_mhz_cfg))"
check_eq "pi3: flags" "NOW:soft temperature limit,HAS:soft temperature limit occurred" "$(cell throttle_flags)"
check "pi3: ARM below max on the measured clock" grep -q 'type=RPI_ARM_CLOCK state=below arm=1200MHz' "$EV"

# Only the property tags answer (no gencmd): HAS: flags left out, said once.
cp -a "$FIXTURES/pi4-healthy" "$TMP/tree-tags"
printf 'tag 0x00030047 id=3 600117184\ntag 0x00030004 id=3 1500000000\ntag 0x00030046 0x50005\n' >"$TMP/tree-tags/dev/vcio"
run tags-only 2 "$TMP/tree-tags"
check_eq "tags only: whole word kept" 0x50005 "$(cell throttled_raw)"
check_eq "tags only: NOW flags only" "NOW:under-voltage,NOW:currently throttled" "$(cell throttle_flags)"
check_eq "tags only: said once" 1 "$(grep -c 'since_boot=unknown source=property-tag' "$EV")"
check "tags only: no since-boot line" bash -c "! grep -q 'occurred since boot' '$EV'"

# No firmware at all, no vcgencmd, rpi_volt alarm set: no made-up word, no ARM clock.
cp -a "$FIXTURES/pi4-healthy" "$TMP/tree-nofw"
rm "$TMP/tree-nofw/dev/vcio"
echo 1 >"$TMP/tree-nofw/sys/class/hwmon/hwmon1/in0_lcrit_alarm"
PATH=/usr/bin:/bin run no-firmware 2 "$TMP/tree-nofw"
check_eq "no firmware: throttled_raw empty, alarm as NOW:under-voltage" ",NOW:under-voltage" "$(cell throttled_raw),$(cell throttle_flags)"
check_eq "no firmware: arm_mhz empty, request in arm_cur_mhz_cfg" ",1500.0" "$(cell arm_mhz),$(cell arm_cur_mhz_cfg)"
check "no firmware: alarm event" grep -q 'type=RPI_THROTTLE condition="under-voltage" state=set source=rpi_volt' "$EV"

run arm-board
check_eq "not a Pi: firmware cells empty" ",,,,," "$(cell volt_core_v),$(cell arm_mhz),$(cell v3d_mhz),$(cell throttled_raw),$(cell throttle_flags),"
check "not a Pi: host values still there" test -n "$(cell temp_c)"

run pi4-noaccess
check "no access: names the device and the video group" grep -q "pi4-noaccess/dev/vcio: permission denied.*group 'video' has /dev/vcio" "$TMP/pi4-noaccess.err"
check_eq "no access: vcgencmd fallback values" "1500.398464 0.8563 0x50000" "$(echo $(cell arm_mhz) $(cell volt_core_v) $(cell throttled_raw))"
