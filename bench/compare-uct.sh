#!/usr/bin/env bash
# Side-by-side UCT-level comparison of ./weft perftest with native ucx_perftest (UCX 1.13), using
# bench/compare.py: alternating pairs, pinned to cores 0/1, median of per-pair ratios.
# Needs ucx_perftest (apt-get install ucx-utils). Run from the repository root:
#   bench/compare-uct.sh [PAIRS] [LABEL-FILTER]   > bench/results/DATE-uct.txt
set -uo pipefail
cd "$(dirname "$0")/.."
PAIRS=${1:-3}
FILTER=${2:-}
SHM_UCX=(--ucx-env "UCX_TLS=posix")
TCP_UCX=(--ucx-env "UCX_TLS=tcp")
run() { # label, compare.py args...
    local label=$1; shift
    [[ -n "$FILTER" && "$label" != *$FILTER* ]] && return 0
    echo "== $label"
    python3 bench/compare.py --label "$label" --pairs "$PAIRS" "$@" 2>&1
}
REV=$(git rev-parse --short HEAD 2>/dev/null || echo "${WEFT_REV:-unknown}")
echo "# $(date -u +%FT%TZ) $(uname -m) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); weft $REV; $(ucx_info -v 2>/dev/null | head -1)"
# shm's 8-byte lines run 10 M iterations after 2 M of warm-up (both tools; UCX's figures do not depend on
# it) so that the JIT's last compiles stay a small part of the measured phase, as in compare-ucp.sh
RN=10000000
RW=2000000
run "shm am_lat 8 B"  --test am_lat --size 8 --iters $RN --warmup $RW --weft-args "-x shm" "${SHM_UCX[@]}" --ucx-args "-x posix -d memory" --max-ratio 1.2
run "tcp am_lat 8 B"  --test am_lat --size 8 --iters 100000 --warmup 20000 --weft-args "-x tcp -d lo" "${TCP_UCX[@]}" --ucx-args "-x tcp -d lo" --max-ratio 1.0
# 4M iterations after 2M of warm-up (1.5 s in all): with 200k of warm-up (50 ms) the responder's last
# compiles (foreground, as perftest's) stalled it for 10-45 ms each inside the measured phase
run "shm am_bw 8 KiB bcopy (UCT max)" --test am_bw --size 8192 --iters 4000000 --warmup 2000000 --metric bw --weft-args "-x shm -D bcopy" "${SHM_UCX[@]}" --ucx-args "-x posix -d memory -D bcopy" --min-ratio 0.9
run "tcp am_bw 64 KiB zcopy (UCT max)" --test am_bw --size 65536 --iters 20000 --warmup 10000 --metric bw --weft-args "-x tcp -d lo -D zcopy" "${TCP_UCX[@]}" --ucx-args "-x tcp -d lo -D zcopy" --min-ratio 0.9
run "shm put_lat 8 B" --test put_lat --size 8 --iters $RN --warmup $RW --weft-args "-x shm -D short" "${SHM_UCX[@]}" --ucx-args "-x posix -d memory -D short" --max-ratio 1.5
run "shm get 8 B"     --test get --size 8 --iters $RN --warmup $RW --weft-args "-x shm -D bcopy" "${SHM_UCX[@]}" --ucx-args "-x posix -d memory -D bcopy" --max-ratio 1.5
run "shm fadd 8 B"    --test fadd --size 8 --iters $RN --warmup $RW --weft-args "-x shm" "${SHM_UCX[@]}" --ucx-args "-x posix -d memory" --max-ratio 1.5
