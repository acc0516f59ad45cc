#!/usr/bin/env bash
# Weft's JUCX module (weft-jucx) against real JUCX (org.openucx:jucx from Maven Central, on the installed
# native UCX), side by side: the same program (bench/jucx/JucxBench.java, JUCX's public API only) run on
# either jar, alternating, two processes pinned to cores 0 and 1, same counts on both sides.
#   bench/compare-jucx.sh [PAIRS] [OUT]        PAIRS alternating pairs per test (default 3)
#   env: SPECS="lat 8 1000000;bw 65536 20000" (tests to run), SLEEP (server start-up seconds), PORT, CONNECT,
#        OLD=DIR another Weft build (e.g. git archive REV | tar -x -C DIR; cd DIR; ./weft build) run first in each
#        round as impl=weft-old, for before/after figures beside JUCX
#        B_OPTS="JVM options" runs this build a second time with those options first in each round, as impl=weft-b
#        (e.g. B_OPTS=-Dweft.native_copy_large=inf: a setting's effect beside JUCX)
# Needs: a JDK >= 25, Maven (to fetch the JUCX jar into ~/.m2 once), native UCX (apt-get install ucx-utils
# libucx0). Not part of the build or the tests: when JUCX or UCX is missing it says so and exits 0.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PAIRS=${1:-3}
OUT=${2:-}
JUCX_VERSION=${JUCX_VERSION:-1.15.0}
PORT=${PORT:-24200}
SLEEP=${SLEEP:-3} # seconds the server gets to start (raise on a loaded machine)
# the tests, "TEST SIZE ITERS" each; SPECS="lat 8 1000000" runs one. lat runs ucx_perftest's default count
# (1,000,000 round trips, after a tenth as many to warm up): with 200,000 the JIT was still compiling in
# the 0.2 s measured loop (JucxBench's own loop, OSR-compiled in the background on its one CPU, for ~0.2 s)
if [[ -n "${SPECS:-}" ]]; then IFS=';' read -r -a SPECS <<<"$SPECS"; else
    SPECS=("lat 8 1000000" "bw 65536 20000" "bwalloc 65536 20000" "bw 1048576 20000" "bwalloc 1048576 20000"); fi
# addr: connect by worker address (native UCX then uses shared memory on one node; its socket-address
# endpoints stay on tcp); sock: through a listener, as JUCX's own benchmarks
CONNECT=${CONNECT:-addr}
JAR="$HOME/.m2/repository/org/openucx/jucx/$JUCX_VERSION/jucx-$JUCX_VERSION.jar"

if ! command -v ucx_info >/dev/null 2>&1 && ! ldconfig -p 2>/dev/null | grep -q libucp.so; then
    echo "compare-jucx: native UCX is not installed (libucp.so): skipping the JUCX comparison"; exit 0
fi
if [[ ! -f "$JAR" ]]; then
    (cd /tmp && mvn -B -q dependency:get -Dartifact=org.openucx:jucx:$JUCX_VERSION -Dtransitive=false >/dev/null 2>&1)
fi
if [[ ! -f "$JAR" ]]; then
    echo "compare-jucx: org.openucx:jucx:$JUCX_VERSION is not available (no network?): skipping"; exit 0
fi
JDK=$("$ROOT/weft" jdk)
JAVA="$JDK/bin/java"
WEFT_CP=$("$ROOT/weft" classpath)
OLD_CP=""
IMPLS=(weft jucx)
if [[ -n "${OLD:-}" ]]; then OLD_CP=$(cd "$OLD" && ./weft classpath) || { echo "compare-jucx: no Weft build in $OLD"; exit 1; }
    IMPLS=(weft-old weft jucx); fi
read -r -a B_OPTS <<<"${B_OPTS:-}"
if [[ ${#B_OPTS[@]} -gt 0 ]]; then IMPLS=(weft-b "${IMPLS[@]}"); fi
JOPTS=(--enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -Xms256m -Xmx256m)
# compiled once against real JUCX's jar and run as a class on either jar (the API is the same): the source
# launcher would compile it in every run, on the pinned core, beside the measured loop
BENCH_CLASSES=$(mktemp -d)
trap 'rm -rf "$BENCH_CLASSES"' EXIT
"$JDK/bin/javac" -d "$BENCH_CLASSES" -cp "$JAR" "$ROOT/bench/jucx/JucxBench.java" || { echo "compare-jucx: JucxBench does not compile"; exit 1; }
export UCX_WARN_UNUSED_ENV_VARS=n

one() { # impl test size iters port -> RESULT line of the client
    local impl=$1 test=$2 size=$3 iters=$4 PORT=$5 cp
    local opts=("${JOPTS[@]}")
    case $impl in weft) cp=$WEFT_CP:$BENCH_CLASSES ;; weft-b) cp=$WEFT_CP:$BENCH_CLASSES; opts+=("${B_OPTS[@]}") ;;
        weft-old) cp=$OLD_CP:$BENCH_CLASSES ;; *) cp=$JAR:$BENCH_CLASSES ;; esac
    taskset -c 0 timeout 300 "$JAVA" "${opts[@]}" -cp "$cp" JucxBench server $PORT "$test" "$size" "$iters" "$CONNECT" \
        >/dev/null 2>&1 &
    local spid=$!
    sleep "$SLEEP"
    taskset -c 1 timeout 300 "$JAVA" "${opts[@]}" -cp "$cp" JucxBench client 127.0.0.1 $PORT "$test" \
        "$size" "$iters" "$CONNECT" 2>/dev/null | grep '^RESULT' | sed "s/impl=weft /impl=$impl /" \
        || echo "RESULT impl=$impl test=$test size=$size value=FAILED"
    wait $spid 2>/dev/null
}

{
echo "# bench/compare-jucx.sh $PAIRS   ($(date -u '+%F %T') UTC, $(nproc) cpus)"
echo "# weft: weft-jucx on weft.ucp (default transports);  jucx: org.openucx:jucx:$JUCX_VERSION on $(ucx_info -v 2>/dev/null | head -1 | sed 's/# //')"
[[ -n "$OLD_CP" ]] && echo "# weft-old: the Weft build in $OLD"
[[ ${#B_OPTS[@]} -gt 0 ]] && echo "# weft-b: this build with ${B_OPTS[*]}"
echo "# UCX_TLS=${UCX_TLS:-<default>}  WEFT_TLS=${WEFT_TLS:-<default>}  connect=$CONNECT  (value: usec one-way for tag_lat, MB/s for read_bw (registered buffer) and read_bw_alloc (memoryMap allocate))"
for spec in "${SPECS[@]}"; do
    set -- $spec
    for p in $(seq 1 "$PAIRS"); do
        for impl in "${IMPLS[@]}"; do
            PORT=$((PORT + 1)) # a fresh port per run: a listener's port may linger in TIME_WAIT
            echo "$(one $impl $1 $2 $3 $PORT)  load=$(cut -d' ' -f1-3 /proc/loadavg)"
        done
    done
done
} | if [[ -n "$OUT" ]]; then tee "$OUT"; else cat; fi # (tee to /dev/stdout printed every line twice)
