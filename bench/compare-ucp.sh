#!/usr/bin/env bash
# Side-by-side UCP-level comparison of ./weft perftest (tag tests over weft.ucp) with native ucx_perftest
# (UCX 1.13): alternating pairs (UCX first), pinned to cores 0/1, ratio weft/ucx of the overall column
# (as ../shared/bench/compare-ucx.py computes it) and, for latency, of the typical (50th percentile)
# column too; median and spread. Transports: WEFT_TLS=shm (shm+cma+self) against UCX_TLS=sm, and
# WEFT_TLS=tcp against UCX_TLS=tcp. Needs ucx_perftest (apt-get install ucx-utils). From the repo root:
#   bench/compare-ucp.sh [PAIRS] [TEST-FILTER]   > bench/results/DATE-ucp.txt
set -uo pipefail
cd "$(dirname "$0")/.."
PAIRS=${1:-3}
FILTER=${2:-}
run() { # label, compare-ucp args...
    local label=$1; shift
    [[ -n "$FILTER" && "$label" != *$FILTER* ]] && return 0
    echo "== $label"
    python3 bench/compare-ucp.py --label "$label" --pairs "$PAIRS" "$@" 2>&1
}
REV=$(git rev-parse --short HEAD 2>/dev/null || echo "${WEFT_REV:-unknown}")
if git rev-parse --git-dir >/dev/null 2>&1 && ! git diff --quiet HEAD -- weft-core weft-tools; then REV="$REV+changes"; fi
echo "# $(date -u +%FT%TZ) $(uname -m) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); weft $REV; $(ucx_info -v 2>/dev/null | sed -n 's/^# *//p' | head -1)"
# ./weft rebuilds when sources change: run from a snapshot (git archive HEAD | tar -x -C DIR; WEFT_REV=...)
# if you edit the tree while this runs
SHM=(--weft-env "WEFT_TLS=shm" --ucx-env "UCX_TLS=sm")
TCP=(--weft-env "WEFT_TLS=tcp" --ucx-env "UCX_TLS=tcp")
run "shm tag_lat 8 B"      --test tag_lat --size 8 --iters 1000000 --warmup 200000 "${SHM[@]}" --max-ratio 1.2
run "tcp tag_lat 8 B"      --test tag_lat --size 8 --iters 100000 --warmup 20000 "${TCP[@]}" --max-ratio 1.0
run "shm tag_bw 1 MiB"     --test tag_bw --size 1048576 --iters 20000 --warmup 2000 --metric bw "${SHM[@]}" --min-ratio 1.0
run "tcp tag_bw 1 MiB"     --test tag_bw --size 1048576 --iters 5000 --warmup 500 --metric bw "${TCP[@]}" --min-ratio 1.0
run "shm tag_bw 8 B rate"  --test tag_bw --size 8 --iters 2000000 --warmup 200000 --metric mr "${SHM[@]}" --min-ratio 1.0
run "tcp tag_bw 8 B rate"  --test tag_bw --size 8 --iters 500000 --warmup 50000 --metric mr "${TCP[@]}" --min-ratio 1.0
