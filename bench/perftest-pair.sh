#!/usr/bin/env bash
# One ./weft perftest server + client pair on this machine, server pinned to core 0 and client to core 1,
# with the same extra JVM options on both sides (WEFT_JVM_OPTS, which split on spaces and come after the
# weft script's own: the last CompileCommand matching a method wins). For A/B runs of JVM settings, which
# bench/compare.py cannot pass (its --weft-env splits on spaces). Prints the client's final line and its
# "# JIT", "# steady state" and "# trace" lines.
#
#   bench/perftest-pair.sh TLS TEST SIZE ITERS WARMUP [client options...]
#   PAIR_OPTS="-XX:CompileCommand=CompileThresholdScaling,weft.*::*,0.01" bench/perftest-pair.sh shm ucp_fadd 8 10000 100
#   bench/perftest-pair.sh tcp tag_lat 8 10000 100 --trace /tmp/trace.txt
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 5 ]; then
    sed -n '2,10p' "$0" >&2
    exit 2
fi
TLS=$1 TEST=$2 SIZE=$3 ITERS=$4 WARMUP=$5
shift 5
./weft classpath >/dev/null # builds once, outside the measured runs
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
SERVER_OUT=$(mktemp)
trap 'rm -f "$SERVER_OUT"' EXIT
WEFT_JVM_OPTS="${PAIR_OPTS:-}" WEFT_TLS=$TLS taskset -c 0 ./weft perftest -p "$PORT" -t "$TEST" -s "$SIZE" \
    -n "$ITERS" -w "$WARMUP" >"$SERVER_OUT" 2>&1 &
SERVER=$!
for _ in $(seq 1 100); do # until the server listens (at most 10 s; a probe connection would be its client)
    if grep -q "Waiting for connection" "$SERVER_OUT"; then break; fi
    sleep 0.1
done
rc=0
WEFT_JVM_OPTS="${PAIR_OPTS:-}" WEFT_TLS=$TLS taskset -c 1 ./weft perftest -p "$PORT" -t "$TEST" -s "$SIZE" \
    -n "$ITERS" -w "$WARMUP" -f "$@" 127.0.0.1 2>&1 | grep -E "^ *[0-9]|^# (JIT|steady|trace)" || rc=$?
wait "$SERVER" || { echo "bench/perftest-pair.sh: the server failed:" >&2; tail -5 "$SERVER_OUT" >&2; exit 1; }
exit $rc
