#!/usr/bin/env bash
# Multi-rail figures over tcp (issue 4): ./weft perftest tag_bw 1 MiB (rendezvous) with one lane or
# several, cross-process (server pinned to CPU 0, client to CPU 1) and in one process (-l: one thread
# drives both sides, so the figure is the CPU cost of the data path), configurations alternating, then
# the one-sided loop weft.bench.MultiRailRmaBench. From the repo root, after ./weft build:
#   bench/multirail.sh [REPS] [PORT-BASE]   > bench/results/DATE-multirail.txt
set -uo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-3}
PORT=${2:-14120}
N=${N:-2000}
echo "# $(date -u +%FT%TZ) $(uname -m) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); weft $(git rev-parse --short HEAD)"
CONFIGS=(
    "WEFT_MAX_RNDV_RAILS=1"
    "WEFT_MAX_RNDV_RAILS=2"
    "WEFT_MAX_RNDV_RAILS=2 WEFT_TCP_RAILS=2 WEFT_TCP_DEVICES=lo"
    "WEFT_RNDV_SCHEME=get WEFT_MAX_RNDV_RAILS=1"
    "WEFT_RNDV_SCHEME=get WEFT_MAX_RNDV_RAILS=2"
)
cross() { # env assignments...
    PORT=$((PORT + 1))
    env WEFT_TLS=tcp "$@" ./weft perftest -p $PORT -c 0 >/dev/null 2>&1 &
    local sp=$!
    sleep 1.5
    env WEFT_TLS=tcp "$@" timeout 180 ./weft perftest 127.0.0.1 -p $PORT -c 1 -x tcp -t tag_bw -s 1048576 \
        -n "$N" -w 200 -f 2>/dev/null | tail -1
    wait $sp
}
loop() {
    env WEFT_TLS=tcp "$@" timeout 180 ./weft perftest -l -x tcp -t tag_bw -s 1048576 -n "$N" -w 200 -f 2>/dev/null | tail -1
}
echo "# columns (ucx_perftest): iterations, overhead 50%ile/average/overall (usec), bandwidth average/overall (MB/s), rate"
for mode in cross loop; do
    echo "== tag_bw 1 MiB, $mode ($( [[ $mode == cross ]] && echo 'two processes' || echo 'one process, -l'))"
    for rep in $(seq "$REPS"); do
        for c in "${CONFIGS[@]}"; do
            # shellcheck disable=SC2086
            printf '%-58s %s\n' "$c" "$($mode $c)"
        done
    done
done
echo "== one-sided put/get, weft.bench.MultiRailRmaBench (one process)"
"${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"/bin/java --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC \
    -cp "weft-bench/target/weft-bench-0.1.0-SNAPSHOT.jar:weft-bench/target/lib/*" weft.bench.MultiRailRmaBench 1 "$REPS"
echo "# end $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
