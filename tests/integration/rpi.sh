#!/usr/bin/env bash
# The Raspberry Pi path end to end: fake firmware (ROOT/dev/vcio as a description file),
# sysfs and vcgencmd fallbacks, host CSV cells in the reference formats, events.log.
. "$(dirname "$0")/../lib.sh"
export PATH="$FIXTURES/bin:$PATH" # the fake vcgencmd

run() { # run TREE: two samples into $TMP/TREE
	"$VIGIL" --root "$FIXTURES/$1" --count 2 --interval 0.05 --log-dir "$TMP/$1" --quiet 2>"$TMP/$1.err"
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
check_eq "pi5: arm clock" 2400.033792 "$(cell arm_mhz)"

run arm-board
check_eq "not a Pi: firmware cells empty" ",,,,," "$(cell volt_core_v),$(cell arm_mhz),$(cell v3d_mhz),$(cell throttled_raw),$(cell throttle_flags),"
check "not a Pi: host values still there" test -n "$(cell temp_c)"

run pi4-noaccess
check "no access: says the video group fixes it" grep -q "'video' group" "$TMP/pi4-noaccess.err"
check_eq "no access: vcgencmd fallback values" "1500.0 0.8563 0x50000" "$(echo $(cell arm_mhz) $(cell volt_core_v) $(cell throttled_raw))"
