#!/bin/sh
# A Slurm HealthCheckProgram without NHC: drain the node while vigil's verdict is
# unhealthy, with vigil's one line as the reason; resume it when it is healthy again and
# the drain is vigil's own. Copy it to /etc/slurm/ (the package ships it in
# /usr/share/doc/vigil/examples/slurm/), chmod 755, and in slurm.conf:
#   HealthCheckProgram=/etc/slurm/vigil-healthcheck.sh
#   HealthCheckInterval=60
# `vigil health` exits 0 healthy (or only degraded), 1 unhealthy, 2 unknown; unknown
# changes nothing.
VIGIL=${VIGIL:-/usr/bin/vigil}
NODE=${SLURMD_NODENAME:-$(hostname -s)}
line=$("$VIGIL" health --log-dir "${VIGIL_LOG_DIR:-/var/log/vigil}" 2>/dev/null)
case $? in
0)
	reason=$(scontrol show node "$NODE" | sed -n 's/^ *Reason=\(vigil: [^[]*\).*/\1/p')
	[ -n "$reason" ] && scontrol update nodename="$NODE" state=resume
	;;
1) scontrol update nodename="$NODE" state=drain reason="vigil: $line" ;;
esac
exit 0
