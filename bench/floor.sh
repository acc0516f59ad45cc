#!/usr/bin/env bash
# The floor under shm ucp_put_lat on this machine: two processes bouncing an 8-byte put through a shared
# file, in C and in Java (FFM), nothing of weft or UCX in it, alternated with ucx_perftest's and weft's
# ucp_put_lat 8 B (pinned to cores 0/1 like compare-ucp.sh; -f lines: iterations, typical, average,
# overall latency in us, ...). What weft adds is its overall figure minus the Java floor of the same round. Needs gcc; the ucx line needs ucx_perftest (apt-get install ucx-utils).
#   bench/floor.sh [ROUNDS]
set -uo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
N=5000000
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
"$JAVA" -version 2>&1 | grep -q 'version "2[5-9]' || JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
gcc -O2 -o "$TMP/flag-pingpong" bench/floor/flag-pingpong.c || exit 1
"${JAVA%/java}/javac" -d "$TMP" bench/floor/FlagPingPong.java || exit 1
pair() { # command prefix...: side 1 on core 0 in the background, side 0 (prints) on core 1
    local f="$TMP/pp.$RANDOM"
    taskset -c 0 "$@" 1 $N "$f" & local p=$!
    sleep 0.5
    taskset -c 1 "$@" 0 $N "$f"
    wait $p
    rm -f "$f"
}
perftest() { # weft|ucx
    local port=$((29000 + RANDOM % 500))
    if [[ $1 == ucx ]]; then
        command -v ucx_perftest >/dev/null || { echo "ucx_perftest not installed"; return; }
        UCX_TLS=sm taskset -c 0 ucx_perftest -t ucp_put_lat -s 8 -n 3000000 -w 200000 -p $port >/dev/null 2>&1 &
        sleep 1
        echo "ucx  ucp_put_lat: $(UCX_TLS=sm taskset -c 1 ucx_perftest localhost -t ucp_put_lat \
            -s 8 -n 3000000 -w 200000 -p $port -f 2>&1 | tail -1)"
    else
        WEFT_TLS=shm taskset -c 0 ./weft perftest -t ucp_put_lat -s 8 -n 3000000 -w 200000 -p $port >/dev/null 2>&1 &
        sleep 1.5
        echo "weft ucp_put_lat: $(WEFT_TLS=shm taskset -c 1 ./weft perftest localhost -t ucp_put_lat \
            -s 8 -n 3000000 -w 200000 -p $port -f 2>&1 | grep -v '^#' | tail -1)"
    fi
    wait
}
./weft classpath >/dev/null || exit 1
echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$ROUNDS"); do
    echo "== round $r"
    pair "$TMP/flag-pingpong"
    pair "$JAVA" -XX:+UseSerialGC -cp "$TMP" FlagPingPong
    perftest ucx
    perftest weft
done
