#!/usr/bin/env bash
# A private one-node Slurm cluster on this machine, for the Slurm tests (weft-tools' SlurmJobTest) and by hand.
#
#   .ci/slurm-local.sh check      exit 0 when a cluster can be brought up here, else print why not and exit 1
#   .ci/slurm-local.sh up DIR     start munged, slurmctld and slurmd with all their state, sockets and logs
#                                 in DIR (created; keep it short: the munge socket path must fit 107 bytes);
#                                 prints SLURM_CONF=DIR/slurm.conf once the node takes jobs
#   .ci/slurm-local.sh down DIR   cancel every job, stop the daemons and every slurmstepd of this cluster
#
# Needs root (slurmd starts tasks as the submitting user) and Debian's 'slurm-wlm munge' (Slurm 22.05);
# 'srun --mpi=pmix' also needs libpmix2 (and libpmix-dev: Debian's plugin opens libpmix.so).
# Nothing outside DIR is written or read: its own munge key and socket (AuthInfo=socket=...), its own
# ports (free ones, chosen at start), ProctrackType=proctrack/linuxproc, TaskPlugin=task/none, no cgroups,
# so it runs beside any other Slurm or munge on the machine. Use it with SLURM_CONF=DIR/slurm.conf srun ...
set -euo pipefail

say() { echo "slurm-local: $*" >&2; }

check() {
    local missing=()
    for exe in munged slurmctld slurmd srun sinfo scancel; do
        command -v "$exe" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin" command -v "$exe" >/dev/null 2>&1 \
            || missing+=("$exe")
    done
    if [[ ${#missing[@]} -gt 0 ]]; then
        echo "Slurm is not installed (missing: ${missing[*]}); apt-get install slurm-wlm munge"
        return 1
    fi
    if [[ $(id -u) -ne 0 ]]; then
        echo "bringing up slurmd needs root (it starts tasks as the submitting user); running as $(id -un)"
        return 1
    fi
    return 0
}

free_port() { # a TCP port nobody listens on, from a range away from the ephemeral ports
    local p
    for _ in $(seq 1 200); do
        p=$((20000 + RANDOM % 10000))
        if ! ss -Hltn "sport = :$p" 2>/dev/null | grep -q .; then echo "$p"; return 0; fi
    done
    say "no free port found"; return 1
}

wait_for() { # SECONDS DESCRIPTION COMMAND...: polls COMMAND every 0.2 s
    local deadline=$((SECONDS + $1)) what=$2
    shift 2
    until "$@" >/dev/null 2>&1; do
        if [[ $SECONDS -ge $deadline ]]; then say "timed out waiting for $what"; return 1; fi
        sleep 0.2
    done
}

up() {
    local dir=$1
    export PATH="$PATH:/usr/sbin:/sbin"
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    chmod 0755 "$dir"
    mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
    chmod 0700 "$dir/munge"
    local sock="$dir/munge/munge.socket"
    if [[ ${#sock} -gt 100 ]]; then say "directory path too long for a unix socket: $dir"; return 1; fi
    head -c 1024 /dev/urandom > "$dir/munge/munge.key"
    chmod 0400 "$dir/munge/munge.key"
    munged --force --socket="$sock" --key-file="$dir/munge/munge.key" --pid-file="$dir/munge/munged.pid" \
        --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed"
    wait_for 10 "munged's socket" test -S "$sock"
    chmod 0755 "$dir/munge"  # tasks of other users must reach the socket too
    local host ctld_port slurmd_port
    host=$(hostname -s)
    ctld_port=$(free_port)
    slurmd_port=$(free_port)
    while [[ $slurmd_port == "$ctld_port" ]]; do slurmd_port=$(free_port); done
    cat > "$dir/slurm.conf" <<EOF
# Written by .ci/slurm-local.sh: a one-node test cluster; everything lives in $dir
ClusterName=weftlocal
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=2
MessageTimeout=10
InactiveLimit=0
MinJobAge=10
NodeName=$host NodeAddr=127.0.0.1 CPUs=8 RealMemory=1000 State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
    export SLURM_CONF="$dir/slurm.conf"
    slurmctld -f "$SLURM_CONF" -i
    wait_for 20 "slurmctld" scontrol ping
    slurmd -f "$SLURM_CONF" -N "$host"
    wait_for 30 "node $host to be idle" sh -c "sinfo -h -n '$host' -o %t | grep -qx idle"
    echo "SLURM_CONF=$SLURM_CONF"
}

kill_pidfile() { # FILE: TERM, then KILL after 5 s
    local f=$1 pid
    [[ -f $f ]] || return 0
    pid=$(cat "$f")
    [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
}

kill_tree() { # PID: SIGKILL to PID and all its descendants, children first listed before the kill
    local pid=$1 child
    kill -STOP "$pid" 2>/dev/null || true
    for child in $(cat /proc/"$pid"/task/*/children 2>/dev/null); do kill_tree "$child"; done
    kill -KILL "$pid" 2>/dev/null || true
}

down() {
    local dir=$1
    export PATH="$PATH:/usr/sbin:/sbin"
    [[ -d $dir ]] || return 0
    dir=$(cd "$dir" && pwd)
    export SLURM_CONF="$dir/slurm.conf"
    if [[ -f $SLURM_CONF ]]; then
        timeout 10 scancel --full --quiet --cluster=weftlocal --user=root 2>/dev/null || true
        timeout 10 scancel --full --quiet 2>/dev/null || true
    fi
    kill_pidfile "$dir/slurmd.pid"
    # slurmstepd of this cluster (they inherit SLURM_CONF from our slurmd) and the tasks they hold
    local pid
    for pid in $(pgrep -x slurmstepd || true); do
        if tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | grep -qx "SLURM_CONF=$SLURM_CONF"; then
            kill_tree "$pid"
        fi
    done
    kill_pidfile "$dir/slurmctld.pid"
    kill_pidfile "$dir/munge/munged.pid"
}

case "${1:-}" in
    check) check ;;
    up) [[ $# -eq 2 ]] || { say "usage: $0 up DIR"; exit 2; }; check >/dev/null || { check; exit 1; }; up "$2" ;;
    down) [[ $# -eq 2 ]] || { say "usage: $0 down DIR"; exit 2; }; down "$2" ;;
    *) say "usage: $0 check | up DIR | down DIR"; exit 2 ;;
esac
