#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for trying `flowrun export slurm` and for its test.
#   scripts/slurm-local.sh start [DIR]   start munged, slurmctld and slurmd; state under DIR (default /tmp/flowrun-slurm)
#   scripts/slurm-local.sh stop [DIR]    stop the daemons started from DIR (munged too if start started it), remove our slurm.conf
# Needs root and Debian's slurmctld slurmd slurm-client munge. Exit 77 when it cannot start (the test skips).
set -euo pipefail
command=${1:-}
dir=${2:-/tmp/flowrun-slurm}
conf=/etc/slurm/slurm.conf
marker="# written by flowrun scripts/slurm-local.sh"

skip() { echo "slurm-local: $*" >&2; exit 77; }

# Starts a daemon without the file descriptors this script inherited beyond stdin, stdout and stderr: a daemon
# holding a caller's pipe keeps the caller waiting (Foundation's Process on Linux sees its child end only once
# every copy of such a descriptor is closed).
daemon() {
    (
        for fd in /proc/$BASHPID/fd/*; do
            fd=${fd##*/}
            if ((fd > 2)); then eval "exec $fd>&-"; fi
        done
        exec "$@" </dev/null >/dev/null 2>&1
    )
}

start() {
    [[ $(id -u) == 0 ]] || skip "needs root (it writes $conf and runs the daemons as root)"
    for program in munged slurmctld slurmd sinfo sbatch; do
        command -v "$program" >/dev/null || skip "$program is missing: apt-get install slurmctld slurmd slurm-client munge"
    done
    if [[ -e $conf ]] && ! grep -q "$marker" "$conf"; then skip "$conf exists and is not ours: not touching a real cluster"; fi
    mkdir -p "$dir"/{state,spool,log} /run/munge /etc/slurm
    chown munge:munge /run/munge
    if [[ ! -s /etc/munge/munge.key ]]; then
        (mungekey --create 2>/dev/null || dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null)
        chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
    fi
    if ! munge -n </dev/null >/dev/null 2>&1; then
        # --force: start even when a stale socket or a lax folder permission would stop it.
        daemon runuser -u munge -- munged --force || daemon munged --force || skip "munged does not start"
        for _ in $(seq 1 50); do [[ -S /run/munge/munge.socket.2 && -s /run/munge/munged.pid ]] && break; sleep 0.1; done
        cp /run/munge/munged.pid "$dir/munged.pid" || skip "munged does not start"  # ours: stop stops it
    fi
    local host cpus
    host=$(hostname)
    cpus=$(nproc)
    cat >"$conf" <<CONF
$marker
ClusterName=flowrun
SlurmctldHost=$host
SlurmctldAddr=127.0.0.1
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
MpiDefault=none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
    daemon slurmctld -i || skip "slurmctld does not start (see $dir/log/slurmctld.log)"
    daemon slurmd || skip "slurmd does not start (see $dir/log/slurmd.log)"
    for _ in $(seq 1 100); do
        if sinfo -h -o '%t' 2>/dev/null | grep -qx idle; then
            echo "slurm-local: $host idle ($cpus CPUs), state in $dir"
            return 0
        fi
        sleep 0.2
    done
    sinfo >&2 || true
    stop
    skip "the node did not come up idle within 20 s (see $dir/log)"
}

stop() {
    for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munged.pid"; do
        if [[ -s $pidfile ]]; then
            local pid
            pid=$(cat "$pidfile")
            kill "$pid" 2>/dev/null || true
            for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -9 "$pid" 2>/dev/null || true
            rm -f "$pidfile"
        fi
    done
    if [[ -e $conf ]] && grep -q "$marker" "$conf"; then rm -f "$conf"; fi
}

case $command in
start) start ;;
stop) stop ;;
*) echo "usage: $0 start|stop [DIR]" >&2; exit 2 ;;
esac
