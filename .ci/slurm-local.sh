#!/usr/bin/env bash
# A private one-node Slurm cluster on this machine, for the Slurm tests (weft-tools' SlurmJobTest) and by hand.
#
#   .ci/slurm-local.sh check [N]  exit 0 when a cluster (of N nodes) can be brought up here, else print why not
#                                 and exit 1
#   .ci/slurm-local.sh up DIR [N] start munged, slurmctld and slurmd with all their state, sockets and logs
#                                 in DIR (created; keep it short: the munge socket path must fit 107 bytes);
#                                 prints SLURM_CONF=DIR/slurm.conf once the nodes take jobs. With N >= 2,
#                                 N nodes n1..nN, each a network namespace (and its own hostname) on this
#                                 machine, joined to this one and to each other by veth pairs, one slurmd each
#   .ci/slurm-local.sh down DIR   cancel every job, stop the daemons and every slurmstepd of this cluster
#
# Needs root (slurmd starts tasks as the submitting user) and Debian's 'slurm-wlm munge' (Slurm 22.05);
# 'srun --mpi=pmix' also needs libpmix2 (and libpmix-dev: Debian's plugin opens libpmix.so).
# Nothing outside DIR is written or read: its own munge key and socket (AuthInfo=socket=...), its own
# ports (free ones, chosen at start), ProctrackType=proctrack/linuxproc, TaskPlugin=task/none, no cgroups,
# so it runs beside any other Slurm or munge on the machine. Use it with SLURM_CONF=DIR/slurm.conf srun ...
# The namespaces are named wsl<tag>n<i> (listed in DIR/netns) and removed by down.
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
    if [[ ${1:-1} -ge 2 ]]; then
        for exe in ip nsenter; do
            command -v "$exe" >/dev/null 2>&1 || { echo "$exe is missing (iproute2, util-linux)"; return 1; }
        done
        local probe="wslprobe$$" why
        if ! why=$(ip netns add "$probe" 2>&1); then
            echo "network namespaces are not permitted here: $why"
            return 1
        fi
        ip netns del "$probe"
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
    local host ctld_port slurmd_port nodes=${2:-1} ctld_addr=127.0.0.1 node_lines="" node_names
    host=$(hostname -s)
    ctld_port=$(free_port)
    slurmd_port=$(free_port)
    while [[ $slurmd_port == "$ctld_port" ]]; do slurmd_port=$(free_port); done
    if [[ $nodes -ge 2 ]]; then
        make_nodes "$dir" "$nodes"
        ctld_addr=$(cat "$dir/ctld_addr")
        for i in $(seq 1 "$nodes"); do
            node_lines+="NodeName=n$i NodeAddr=$(sed -n "${i}p" "$dir/node_addrs") CPUs=4 RealMemory=1000 State=UNKNOWN"$'\n'
        done
        node_names="n[1-$nodes]"
    else
        node_lines="NodeName=$host NodeAddr=127.0.0.1 CPUs=8 RealMemory=1000 State=UNKNOWN"$'\n'
        node_names=$host
    fi
    cat > "$dir/slurm.conf" <<EOF
# Written by .ci/slurm-local.sh: a test cluster of $nodes node(s); everything lives in $dir
ClusterName=weftlocal
SlurmctldHost=$host($ctld_addr)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
TmpFS=$dir/tmp/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
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
${node_lines}PartitionName=local Nodes=$node_names Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
    export SLURM_CONF="$dir/slurm.conf"
    slurmctld -f "$SLURM_CONF" -i
    wait_for 20 "slurmctld" scontrol ping
    if [[ $nodes -ge 2 ]]; then
        for i in $(seq 1 "$nodes"); do
            mkdir -p "$dir/spool/n$i" "$dir/tmp/n$i"  # per node: Slurm's PMIx server makes its directory there
            # (nsenter, not ip netns exec: that remounts /sys, without the cgroup file system slurmd wants)
            nsenter --net="/run/netns/$(sed -n "${i}p" "$dir/netns")" slurmd -f "$SLURM_CONF" -N "n$i"
        done
        wait_for 30 "nodes $node_names to be idle" \
            sh -c "test \$(sinfo -h -N -n '$node_names' -o %t | grep -cx idle) -eq $nodes"
    else
        mkdir -p "$dir/spool/$host" "$dir/tmp/$host"
        slurmd -f "$SLURM_CONF" -N "$host"
        wait_for 30 "node $host to be idle" sh -c "sinfo -h -n '$host' -o %t | grep -qx idle"
    fi
    echo "SLURM_CONF=$SLURM_CONF"
}

# DIR N: namespaces wsl<tag>n1..N; node i at 10.X.i.2 (its link to this machine: 10.X.i.1), node pairs
# joined directly on 10.X.(100+k).0/24 (this machine does not forward between the links)
make_nodes() {
    local dir=$1 nodes=$2 tag net i j k=0 ns
    tag=$(head -c 2 /dev/urandom | od -An -tx1 | tr -d ' \n')
    for _ in $(seq 1 20); do
        net="10.$((200 + RANDOM % 50))"
        ip route | grep -q "^$net\." || break
    done
    : > "$dir/netns"
    : > "$dir/node_addrs"
    for i in $(seq 1 "$nodes"); do
        ns="wsl${tag}n$i"
        ip netns add "$ns"
        echo "$ns" >> "$dir/netns"
        ip link add "wsl${tag}r$i" type veth peer name "wsl${tag}v$i" netns "$ns"
        ip addr add "$net.$i.1/24" dev "wsl${tag}r$i"
        ip link set "wsl${tag}r$i" up
        ip netns exec "$ns" ip addr add "$net.$i.2/24" dev "wsl${tag}v$i"
        ip netns exec "$ns" ip link set "wsl${tag}v$i" up
        ip netns exec "$ns" ip link set lo up
        ip netns exec "$ns" ip route add default via "$net.$i.1"
        echo "$net.$i.2" >> "$dir/node_addrs"
    done
    for i in $(seq 1 "$nodes"); do
        for j in $(seq $((i + 1)) "$nodes"); do
            k=$((k + 1))
            ip link add "wsl${tag}p$i$j" netns "wsl${tag}n$i" type veth peer name "wsl${tag}p$j$i" netns "wsl${tag}n$j"
            ip netns exec "wsl${tag}n$i" ip addr add "$net.$((100 + k)).1/24" dev "wsl${tag}p$i$j"
            ip netns exec "wsl${tag}n$j" ip addr add "$net.$((100 + k)).2/24" dev "wsl${tag}p$j$i"
            ip netns exec "wsl${tag}n$i" ip link set "wsl${tag}p$i$j" up
            ip netns exec "wsl${tag}n$j" ip link set "wsl${tag}p$j$i" up
            # the other node's address only: the rest of its /24 (this machine's end) stays behind the default route
            ip netns exec "wsl${tag}n$i" ip route add "$net.$j.2/32" via "$net.$((100 + k)).2"
            ip netns exec "wsl${tag}n$j" ip route add "$net.$i.2/32" via "$net.$((100 + k)).1"
        done
    done
    echo "$net.1.1" > "$dir/ctld_addr"
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
    local f
    for f in "$dir"/slurmd-*.pid; do kill_pidfile "$f"; done
    # slurmstepd of this cluster (they inherit SLURM_CONF from our slurmd) and the tasks they hold
    local pid
    for pid in $(pgrep -x slurmstepd || true); do
        if { tr '\0' '\n' < "/proc/$pid/environ"; } 2>/dev/null | grep -qx "SLURM_CONF=$SLURM_CONF"; then
            kill_tree "$pid"
        fi
    done
    kill_pidfile "$dir/slurmctld.pid"
    kill_pidfile "$dir/munge/munged.pid"
    if [[ -f $dir/netns ]]; then
        local ns
        while read -r ns; do
            [[ -n $ns ]] && ip netns del "$ns" 2>/dev/null || true  # removes the veth ends inside, and their peers
        done < "$dir/netns"
    fi
}

case "${1:-}" in
    check) check "${2:-1}" ;;
    up) [[ $# -eq 2 || $# -eq 3 ]] || { say "usage: $0 up DIR [NODES]"; exit 2; }
        check "${3:-1}" >/dev/null || { check "${3:-1}"; exit 1; }
        up "$2" "${3:-1}" ;;
    down) [[ $# -eq 2 ]] || { say "usage: $0 down DIR"; exit 2; }; down "$2" ;;
    *) say "usage: $0 check | up DIR [NODES] | down DIR"; exit 2 ;;
esac
