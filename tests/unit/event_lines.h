/* SPDX-License-Identifier: Apache-2.0 */
/* events.log lines of every kind vigil writes, shaped as their emitters write them,
 * with the dashboard's sentence for each (shared by test_event_sentences and
 * test_event_kinds). */
#ifndef VIGIL_TESTS_EVENT_LINES_H
#define VIGIL_TESTS_EVENT_LINES_H

struct event_case {
        const char *line, *sentence;
};

static const struct event_case event_cases[] = {
    {"type=START version=0.1.0 pid=812", "vigil started"},
    {"type=STOP samples=3600", "vigil stopped"},
    {"type=NVLINK gpu=0 link=3 state=errors counter=recovery_events delta=2 total=14",
     "GPU 0: NVLink link 3 errors: recovery_events +2 (14 in all)"},
    {"type=NVLINK gpu=0 link=5 state=down", "GPU 0: NVLink link 5 down"},
    {"type=FABRIC gpu=0 state=incomplete fabric=in_progress",
     "GPU 0: NVLink fabric incomplete: probe in_progress"},
    {"type=FABRIC gpu=2 state=failed fabric=completed status=999",
     "GPU 2: NVLink fabric failed: probe completed, status 999"},
    {"type=FABRIC gpu=0 state=degraded health=degraded_bw,route_recovery",
     "GPU 0: NVLink fabric degraded, health degraded_bw,route_recovery"},
    {"type=WRITE_RESUMED dropped_rows=12 failed_s=30 error=\"No space left on device\"",
     "writes work again: 12 rows lost (No space left on device)"},
    {"type=DISK_LOW free_mb=40 action=pause", "disk low (40 MB free): writes paused"},
    {"type=DISK_RESUMED free_mb=900 paused_s=120", "writes resumed after 120 s (900 MB free)"},
    {"type=NVML_EVENT gpu=0 event=Xid(79) mask=0x0008 data=79 xid=79 class=reboot "
     "meaning=\"GPU has fallen off the bus\" action=\"reboot the machine; if it repeats, check "
     "the PCIe slot and riser, the power supply and cooling\" severity=critical "
     "nvidia_action=RESTART_BM",
     "GPU 0: Xid 79: GPU has fallen off the bus. Action: reboot the machine; if it repeats, "
     "check the PCIe slot and riser, the power supply and cooling."},
    {"type=NVML_EVENT gpu=1 event=Xid(999) mask=0x0008 data=999 xid=999 "
     "meaning=\"not in NVIDIA's Xid catalog\"",
     "GPU 1: Xid 999 (not in NVIDIA's Xid catalog)"},
    {"type=NVML_EVENT gpu=0 event=GpuUnavailable mask=0x0800 data=0",
     "GPU 0: the GPU became unavailable"},
    {"type=NVML_EVENT gpu=0 event=GpuRecoveryAction mask=0x8000 data=2 recovery_action=RESET",
     "GPU 0: the driver's recovery action is now RESET"},
    {"type=NVML_EVENT gpu=2 event=ClockBurst count=8 window=1.0s", "GPU 2: NVML event ClockBurst"},
    {"type=CRASH_SNAPSHOT gpu=0 number=1 file=snapshots/crash-1.txt reason=\"Xid(79)\"",
     "GPU 0: crash snapshot snapshots/crash-1.txt (Xid(79))"},
    {"type=SNAPSHOT_SUPPRESSED gpu=0 kind=crash number=3 cooldown=60s "
     "noted_in=snapshots/crash-1.txt",
     "GPU 0: no crash snapshot for event #3 (60s cooldown); noted in snapshots/crash-1.txt"},
    {"type=SNAPSHOT_SUPPRESSED gpu=1 kind=spike number=4 cooldown=10s",
     "GPU 1: no spike snapshot for event #4 (10s cooldown)"},
    {"type=SPIKE_SNAPSHOT gpu=0 number=2 file=snapshots/spike-2.csv",
     "GPU 0: fan-spike snapshot snapshots/spike-2.csv"},
    {"type=GPU_PROCESSES gpu=0 reason=xid compute=1 graphics=0 pids=4242:python3 "
     "workloads=4242=pod:ml-team/train-0:4c8a0e3e-6f1b-4a55-9d6c-2b7e5f3a1c90:7d3f8a9b2c1e",
     "GPU 0: processes (xid): 1 compute, 0 graphics: 4242:python3; workloads "
     "4242=pod:ml-team/train-0:4c8a0e3e-6f1b-4a55-9d6c-2b7e5f3a1c90:7d3f8a9b2c1e"},
    {"type=GPU_PROCESSES gpu=0 reason=crash compute=2 graphics=0 pids=812:python,813:python",
     "GPU 0: processes (crash): 2 compute, 0 graphics: 812:python,813:python"},
    {"type=CRASH_FOLLOWUP gpu=0 delay=30s file=snapshots/crash-1-30s.txt",
     "GPU 0: crash follow-up 30s after the crash: snapshots/crash-1-30s.txt"},
    {"type=EVENT_LISTENER state=failed error=\"nvmlEventSetWait: Unknown Error\"",
     "the NVML event listener failed: nvmlEventSetWait: Unknown Error"},
    {"type=GPU_COUNT state=missing answering=1 expected=2 from=state",
     "GPUs missing: 1 of 2 expected answer"},
    {"type=GPU_COUNT state=back answering=2 expected=2 from=state",
     "GPUs back: 2 of 2 expected answer"},
    {"type=NVML_FAILED gpu=0 error=\"GPU is lost\"", "GPU 0: stopped answering (GPU is lost)"},
    {"type=THROTTLE gpu=0 from=none to=sw_thermal",
     "GPU 0: clock-event reasons now sw_thermal (were none)"},
    {"type=ANOMALY gpu=0 flag=FAN_SPIKE suppressed=3", "GPU 0: anomaly FAN_SPIKE"},
    {"type=ENFORCED_LIMIT_CHANGE gpu=0 from=300W to=250W delta=-50W",
     "GPU 0: enforced power limit changed from 300W to 250W"},
    {"type=TEMP_OVER_MAX gpu=0 state=above temp=95C max=90C",
     "GPU 0: temperature 95C against a maximum operating 90C (above)"},
    {"type=TEMP_OVER_MAX gpu=0 state=back temp=85C max=90C",
     "GPU 0: temperature 85C against a maximum operating 90C (back)"},
    {"type=GPU_MEMORY gpu=0 state=retirement_pending remap_pending=na remap_failure=na "
     "retired_pending=1 retired_sbe=2 retired_dbe=0 ecc_mode=1 ecc_mode_pending=1",
     "GPU 0: memory retirement_pending"},
    {"type=GPU_MEMORY gpu=0 state=ok remap_pending=0 remap_failure=0 retired_pending=na "
     "retired_sbe=na retired_dbe=na ecc_mode=1 ecc_mode_pending=1",
     "GPU 0: memory ok"},
    {"type=PCIE_LINK gpu=0 state=degraded gen=4 width=8 max_gen=4 max_width=16",
     "GPU 0: PCIe link degraded: gen 4 x8 of gen 4 x16"},
    {"type=GPU_RECOVERED gpu=0 failures=5", "GPU 0: answers again, after 5 failed samples"},
    {"type=TDP_CHANGE from=300W to=250W delta=-50W gpu=0",
     "GPU 0: power limit changed from 300W to 250W"},
    {"type=KERNEL_GPU kind=fallen_off_bus gpu=0 pci=0000:01:00.0 meaning=\"GPU has fallen off "
     "the bus\" action=\"reboot the machine\" text=\"GPU 0000:01:00.0: GPU has fallen off the "
     "bus.\"",
     "GPU 0: kernel log, fallen_off_bus at 0000:01:00.0: GPU has fallen off the bus. Action: "
     "reboot the machine"},
    {"type=KERNEL_GPU kind=aer_corrected pci=0000:01:00.0 meaning=\"a corrected PCIe error\" "
     "action=\"\" text=\"x\"",
     "kernel log, aer_corrected at 0000:01:00.0: a corrected PCIe error"},
    {"type=INCIDENT reason=\"player gone\" snapshot=/var/log/vigil/incident-1.txt watch=player",
     "incident: player gone, snapshot /var/log/vigil/incident-1.txt"},
    {"type=SNAPSHOT reason=\"Requested: why\" snapshot=/var/log/vigil/snap-1.txt",
     "snapshot: Requested: why, snapshot /var/log/vigil/snap-1.txt"},
    {"type=RPI_TEMP level=hot temp=85.2C warn=80.0C crit=85.0C", "Pi temperature hot: 85.2C"},
    {"type=RPI_THROTTLE condition=\"under-voltage\" state=set throttled=0x50005 temp=61.3C",
     "Pi: under-voltage set"},
    {"type=RPI_ARM_CLOCK state=below arm=600MHz target=1500MHz max=1500MHz",
     "Pi: ARM clock below: 600MHz (target 1500MHz, max 1500MHz)"},
    {"type=SHM state=full used=91.0% limit=90.0%", "/dev/shm full: 91.0% used"},
    {"type=RPI_THROTTLE_HISTORY throttled=0x50000 since_boot=\"under-voltage\"",
     "Pi since boot: under-voltage"},
    {"type=STORAGE state=read-only fs=root mount=/ device=/dev/mmcblk0p2 fstype=ext4",
     "storage: / is read-only"},
    {"type=STORAGE_FILL state=filling fs=root mount=/ device=/dev/sda1 fstype=ext4 "
     "avail=120.0MB full_in=2.5h",
     "storage: / filling, full in 2.5h"},
    {"type=STORAGE_ERRORS new=2 total=7 last=\"EXT4-fs error\"",
     "storage errors: 2 new (7 in all) EXT4-fs error"},
    {"type=DISPLAY connector=HDMI-A-1 state=disconnected", "screen HDMI-A-1 disconnected"},
    {"type=DISPLAY connector=HDMI-A-1 state=connected monitor=\"DELL P2419H\" "
     "serial=\"7XQPK93\"",
     "screen HDMI-A-1 connected: DELL P2419H"},
    {"type=DISPLAY_DPMS connector=HDMI-A-1 dpms=Off", "screen HDMI-A-1: display power Off"},
    {"type=DISPLAY_MONITOR connector=HDMI-A-2 from=\"DELL P2419H 7XQPK93\" "
     "to=\"LG FULL HD 1A2B\"",
     "screen HDMI-A-2: a different monitor, DELL P2419H 7XQPK93 \xE2\x86\x92 LG FULL HD 1A2B"},
    {"type=DISPLAY_CEC power=standby", "TV power (HDMI-CEC): standby"},
    {"type=NETWORK_LINK interface=wlan0 state=down carrier_changes=7",
     "network wlan0 link down (7 changes)"},
    {"type=NETWORK state=offline reason=\"no default route\"", "network offline: no default route"},
    {"type=NETWORK state=online", "network online"},
    {"type=SD_WEAR state=worn device=mmcblk0 life_time=90-100% pre_eol=warning "
     "endurance_days=120",
     "SD card mmcblk0 wear worn: life time 90-100%, pre-EOL warning, 120 days of endurance "
     "left"},
    {"type=TREND field=pss_mb state=rising slope_per_h=+12.00 limit_per_h=5.00 window=60m",
     "pss_mb is rising: +12.00 per hour"},
    {"type=HEALTH component=gpu0.pcie state=unhealthy from=healthy action=\"reboot the machine\" "
     "reason=\"GPU 0: Xid 79: GPU has fallen off the bus.\" evidence=crashes/crash-1.log",
     "health of gpu0.pcie: unhealthy (was healthy); action: reboot the machine: GPU 0: Xid 79: GPU "
     "has fallen off the bus."},
    {"type=HEALTH_CLEARED component=gpu3 reason=\"reseated riser\"",
     "health of gpu3 cleared by a person: reseated riser"},
    {"type=POSTMORTEM end=reboot quiet=2026-12-03T03:01:02.300 file=postmortem/pm-1.txt",
     "the previous run ended: reboot; quiet since 2026-12-03T03:01:02.300; post-mortem "
     "postmortem/pm-1.txt"},
    {"type=POSTMORTEM end=killed error=\"No space left on device\"",
     "the previous run ended: killed; no post-mortem (No space left on device)"},
    {"type=OOM_KILL pid=1234 comm=\"chromium\" watch=\"player\" scope=\"memory cgroup\" "
     "cgroup=\"/system.slice/player.service\" rss_kb=527360",
     "out of memory (memory cgroup): the kernel killed chromium (pid 1234) of watch player in "
     "/system.slice/player.service, 527360 kB resident"},
    {"type=OOM_KILL pid=77 comm=\"python3\" scope=\"machine\"",
     "out of memory (machine): the kernel killed python3 (pid 77)"},
    {"type=PROCESS_FAULT pid=812 comm=\"chromium\" watch=\"player\" what=\"segfault\"",
     "the kernel ended chromium (pid 812) of watch player: segfault"},
    {"type=WATCH watch=\"player\" state=\"gone\" old_pid=812 comm=\"chromium\" "
     "cause=\"out of memory (chromium pid 812)\"",
     "player gone (pid 812): out of memory (chromium pid 812)"},
    {"type=WATCH watch=\"player\" state=\"back\" pid=990 down_s=14 restarts=1",
     "player back, now pid 990 after 14 s down"},
    {"type=WATCH watch=\"player\" state=\"restarted\" pid=990 old_pid=812 "
     "comm=\"chromium\" restarts=2",
     "player restarted (pid 812), now pid 990"},
    {"type=WATCH watch=\"player\" state=\"missing\"", "player missing"},
    {"type=UNIT watch=\"player\" unit=\"player.service\" active=\"activating\" "
     "sub=\"auto-restart\" result=\"signal\" nrestarts=4 main=\"killed by signal 11\"",
     "player: unit player.service activating (auto-restart), result signal, 4 restarts by "
     "systemd, main process killed by signal 11"},
    {"type=POSTMORTEM end=reboot cause=brownout quiet=2026-12-03T03:01:02.300 "
     "file=postmortem/pm-2.txt",
     "the previous run ended: reboot (brownout); quiet since 2026-12-03T03:01:02.300; "
     "post-mortem postmortem/pm-2.txt"},
    /* Not vigil's: shown as it is. */
    {"type=FUTURE_KIND a=1", "type=FUTURE_KIND a=1"},
    {"no type here", "no type here"},
};

#define N_EVENT_CASES (sizeof(event_cases) / sizeof(event_cases[0]))

#endif
