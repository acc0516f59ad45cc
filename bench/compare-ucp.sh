#!/usr/bin/env bash
# Side-by-side UCP-level comparison of ./weft perftest (tag tests over weft.ucp) with native ucx_perftest
# (UCX 1.13) through bench/compare.py: alternating pairs (UCX first), pinned to cores 0/1, ratio weft/ucx
# of the overall column and, for latency, of the typical (50th percentile) column too; median and spread.
# Transports: WEFT_TLS=shm (shm+cma+self) against UCX_TLS=sm, and WEFT_TLS=tcp against UCX_TLS=tcp.
# Needs ucx_perftest (apt-get install ucx-utils). From the repo root:
#   bench/compare-ucp.sh [PAIRS] [TEST-FILTER]   > bench/results/DATE-ucp.txt
set -uo pipefail
cd "$(dirname "$0")/.."
PAIRS=${1:-3}
FILTER=${2:-}
run() { # label, compare.py args...
    local label=$1; shift
    [[ -n "$FILTER" && "$label" != *$FILTER* ]] && return 0
    echo "== $label"
    python3 bench/compare.py --label "$label" --pairs "$PAIRS" "$@" 2>&1
}
REV=$(git rev-parse --short HEAD 2>/dev/null || echo "${WEFT_REV:-unknown}")
if git rev-parse --git-dir >/dev/null 2>&1 && ! git diff --quiet HEAD -- weft-core weft-tools; then REV="$REV+changes"; fi
echo "# $(date -u +%FT%TZ) $(uname -m) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); weft $REV; $(ucx_info -v 2>/dev/null | sed -n 's/^# *//p' | head -1)"
# ./weft rebuilds when sources change: run from a snapshot (git archive HEAD | tar -x -C DIR; WEFT_REV=...)
# if you edit the tree while this runs
SHM=(--weft-env "WEFT_TLS=shm" --ucx-env "UCX_TLS=sm")
# shm's 8-byte lines run long enough for the JIT's last recompiles to be a small part of the measured phase
# (RN iterations after RW of warm-up): with 2 M iterations (130 ms) they were a third of tag_bw's measured
# phase (the sender's first full FIFO deoptimizes Worker.progress: ~50 ms of slower code and compiles), and
# 1 M ucp_put_lat iterations (190 ms) carried 25 ms of compilation; see bench/results/2026-11-25-session9-*.
# Both tools run the same counts; UCX's figures do not depend on them.
RN=20000000
RW=2000000
# 1 MiB tests warm up for ucx_perftest's default 10000 iterations: a few thousand large messages run the
# per-message code too few times for the JIT's thresholds, whose compiles then land in the measured loop
# (perftest's "# JIT compilation during the measured phase" line: 150-200 ms of 2.8 s with -w 2000)
WB=10000
TCP=(--weft-env "WEFT_TLS=tcp" --ucx-env "UCX_TLS=tcp")
run "shm tag_lat 8 B"      --test tag_lat --size 8 --iters $((RN / 4)) --warmup $RW "${SHM[@]}" --max-ratio 1.2
run "tcp tag_lat 8 B"      --test tag_lat --size 8 --iters 100000 --warmup 20000 "${TCP[@]}" --max-ratio 1.0
run "shm tag_bw 1 MiB"     --test tag_bw --size 1048576 --iters 20000 --warmup $WB --metric bw "${SHM[@]}" --min-ratio 1.0
run "tcp tag_bw 1 MiB"     --test tag_bw --size 1048576 --iters 5000 --warmup $WB --metric bw "${TCP[@]}" --min-ratio 1.0
run "shm tag_bw 8 B rate"  --test tag_bw --size 8 --iters $RN --warmup $RW --metric mr "${SHM[@]}" --min-ratio 1.0
run "tcp tag_bw 8 B rate"  --test tag_bw --size 8 --iters 500000 --warmup 50000 --metric mr "${TCP[@]}" --min-ratio 1.0
# issue 4: one-sided operations (UCX_TLS=sm for shm). ucp_get over tcp is compared with UCX's one-way tcp tag_lat,
# ucp_put_bw over tcp with UCX's tcp tag_bw (both of the same run)
run "shm ucp_put_lat 8 B"  --test ucp_put_lat --size 8 --iters $((RN / 2)) --warmup $RW "${SHM[@]}" --max-ratio 1.5
run "shm ucp_get 8 B"      --test ucp_get --size 8 --iters $((RN / 2)) --warmup $RW "${SHM[@]}" --max-ratio 1.5
run "shm ucp_fadd 8 B"     --test ucp_fadd --size 8 --iters $((RN / 2)) --warmup $RW "${SHM[@]}" --max-ratio 1.5
run "tcp ucp_put_lat 8 B"  --test ucp_put_lat --size 8 --iters 100000 --warmup 20000 "${TCP[@]}" --max-ratio 1.0
run "tcp ucp_fadd 8 B"     --test ucp_fadd --size 8 --iters 100000 --warmup 20000 "${TCP[@]}" --max-ratio 1.0
run "tcp ucp_get 8 B vs tag_lat" --test ucp_get --ucx-test tag_lat --size 8 --iters 100000 --warmup 20000 "${TCP[@]}" --max-ratio 2.0
run "tcp ucp_put_bw 1 MiB vs tag_bw" --test ucp_put_bw --ucx-test tag_bw --size 1048576 --iters 5000 --warmup $WB --metric bw "${TCP[@]}" --min-ratio 0.9
run "shm ucp_put_bw 1 MiB" --test ucp_put_bw --size 1048576 --iters 20000 --warmup $WB --metric bw "${SHM[@]}" --min-ratio 0.8
# issue 3: streams and active messages (targets as the tag tests')
for TL in shm tcp; do
    if [[ $TL == shm ]]; then E=("${SHM[@]}"); LAT=1.2; N=$((RN / 4)); NR=$RN; NW=$RW; NB=20000
    else E=("${TCP[@]}"); LAT=1.0; N=100000; NR=$((N * 2)); NW=$((N / 5)); NB=5000; fi
    for T in stream ucp_am; do
        run "$TL ${T}_lat 8 B"      --test ${T}_lat --size 8 --iters $N --warmup $NW "${E[@]}" --max-ratio $LAT
        run "$TL ${T}_lat 1 MiB"    --test ${T}_lat --size 1048576 --iters $((NB / 4)) --warmup $WB "${E[@]}" --max-ratio $LAT
        run "$TL ${T}_bw 8 B rate"  --test ${T}_bw --size 8 --iters $NR --warmup $NW --metric mr "${E[@]}" --min-ratio 1.0
        run "$TL ${T}_bw 1 MiB"     --test ${T}_bw --size 1048576 --iters $NB --warmup $WB --metric bw "${E[@]}" --min-ratio 1.0
    done
done
