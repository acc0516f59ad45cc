#!/usr/bin/env bash
# Weft's OpenSHMEM beside Open MPI's OSHMEM, 2 PEs on this machine, over shared memory and over tcp:
# put/get latency 8 B - 1 MiB, put+quiet, put/get message rate, fetch-add/add/swap/cswap latency, barrier,
# broadcast, reduce and fcollect latency. The same program twice (bench/shmem/ShmemBench.java on weft.shmem,
# bench/shmem/shmem_bench.c compiled with oshcc now), run alternately, PAIRS times per transport; the table
# holds the median of each side and the median of the per-pair ratios weft/oshmem (latency: < 1 is Weft
# faster; rate: > 1 is Weft faster), with /proc/loadavg before each run.
#
#   ./weft bench shmem [PAIRS] [OUT]  or  bench/shmem/compare.sh [PAIRS] [OUT]
#                                  (default 3 pairs, table on stdout and in OUT if given)
#   BENCH_TLS="tcp" SHMEM_BENCH_ROWS=coll bench/shmem/compare.sh 3   (one transport; the collective rows alone)
#   SHMEM_BENCH_ROWS=sig: put+quiet and the put-with-signal ping-pong rows alone (putsig: half a round trip of
#   a put of 8 B / 4 KiB whose signal the other PE waits for; OSHMEM 4.1 (OpenSHMEM 1.4) puts, fences, sets)
#
# Both sides bind each PE to a core of its own (weft run does by default; oshrun gets --bind-to core).
# OSHMEM: oshrun -np 2 --mca spml ucx -x UCX_TLS=sm,self (shm) or tcp,self (tcp); Weft: ./weft run -n 2 with
# WEFT_TLS=shm or tcp. OSHMEM's collectives (scoll mpi) run on Open MPI's MPI layer (pml ob1 here: pml ucx
# declines without an RDMA transport), which UCX_TLS does not reach: its btl is pinned to the same transport
# too (--mca btl vader,self or tcp,self), else the "tcp" collectives go through shared memory (vader).
# Without oshcc/oshrun the script says so and measures Weft alone. The table's last column: the windows
# each Weft run's row took to its steady state (see ShmemBench).
set -euo pipefail
cd "$(dirname "$0")/../.."
PAIRS=${1:-3}
OUT=${2:-}
BENCH_TLS=${BENCH_TLS:-shm tcp}
export SHMEM_BENCH_ROWS=${SHMEM_BENCH_ROWS:-all}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

have_oshmem=1
if ! command -v oshcc >/dev/null || ! command -v oshrun >/dev/null; then
    echo "bench/shmem: oshcc/oshrun not found (Open MPI with OSHMEM): measuring Weft alone, no ratios" >&2
    have_oshmem=0
elif ! oshcc -O2 -o "$WORK/shmem_bench" bench/shmem/shmem_bench.c 2>"$WORK/cc.err"; then
    echo "bench/shmem: oshcc could not compile bench/shmem/shmem_bench.c: measuring Weft alone" >&2
    cat "$WORK/cc.err" >&2
    have_oshmem=0
fi
ROOT_OPTS=()
if [ "$(id -u)" = 0 ]; then ROOT_OPTS=(--allow-run-as-root); fi
./weft classpath >/dev/null # builds once, outside the measured runs

run_weft() { # tls file
    SHMEM_SYMMETRIC_SIZE=32m WEFT_TLS=$1 ./weft run -n 2 --timeout 600 bench/shmem/ShmemBench.java >"$2" 2>"$2.err" \
        || echo "bench/shmem: the Weft run ($1) failed, see below" >&2
}
run_oshmem() { # tls file
    local tls=sm,self btl=vader,self
    [ "$1" = tcp ] && tls=tcp,self btl=tcp,self
    # OSHMEM 4.1 with UCX 1.13 may crash in shmem_finalize here, after the measurements: the lines count.
    timeout 600 oshrun -np 2 "${ROOT_OPTS[@]}" --oversubscribe --bind-to core --mca spml ucx -x UCX_TLS=$tls --mca btl $btl \
        -x SHMEM_BENCH_ROWS "$WORK/shmem_bench" >"$2" 2>"$2.err" || true
}

for tls in $BENCH_TLS; do
    for p in $(seq 1 "$PAIRS"); do
        cut -d' ' -f1-3 /proc/loadavg >"$WORK/$tls.weft.$p.load"
        run_weft "$tls" "$WORK/$tls.weft.$p"
        if [ $have_oshmem = 1 ]; then
            cut -d' ' -f1-3 /proc/loadavg >"$WORK/$tls.oshmem.$p.load"
            run_oshmem "$tls" "$WORK/$tls.oshmem.$p"
        fi
    done
done

python3 - "$WORK" "$PAIRS" "$have_oshmem" "$BENCH_TLS" <<'PY' | tee ${OUT:+"$OUT"}
import os, statistics, sys
work, pairs, have = sys.argv[1], int(sys.argv[2]), sys.argv[3] == '1'

def parse(path):
    rows = {}
    if os.path.exists(path):
        for line in open(path):
            f = line.split()
            if len(f) == 4 and f[0] == 'steady':
                steady.setdefault((path, f[1], int(f[2])), f[3])
                continue
            if len(f) == 4:
                try:
                    rows[(f[0], int(f[1]))] = (float(f[2]), f[3])
                except ValueError:
                    pass
    return rows

steady = {}  # (run file, test, bytes) -> windows the Weft row took to its steady state

def load(path):
    return open(path).read().strip() if os.path.exists(path) else '?'

print('# Weft OpenSHMEM vs Open MPI OSHMEM (spml ucx), 2 PEs, %d alternating pairs per transport' % pairs)
for tls in sys.argv[4].split():
    weft = [parse(f'{work}/{tls}.weft.{p}') for p in range(1, pairs + 1)]
    osh = [parse(f'{work}/{tls}.oshmem.{p}') for p in range(1, pairs + 1)] if have else []
    print(f'\n## {tls}  (loadavg before each run: weft ' + ', '.join(load(f'{work}/{tls}.weft.{p}.load')
          for p in range(1, pairs + 1)) + ('; oshmem ' + ', '.join(load(f'{work}/{tls}.oshmem.{p}.load')
          for p in range(1, pairs + 1)) if have else '') + ')')
    print('%-10s %8s %6s %12s %12s %10s  %s' % ('test', 'bytes', 'unit', 'weft', 'oshmem', 'weft/osh',
                                              'weft windows'))
    keys = []
    for r in weft + osh:
        for k in r:
            if k not in keys:
                keys.append(k)
    for k in keys:
        w = [r[k][0] for r in weft if k in r]
        o = [r[k][0] for r in osh if k in r]
        unit = next(r[k][1] for r in weft + osh if k in r)
        ratios = [a[k][0] / b[k][0] for a, b in zip(weft, osh) if k in a and k in b and b[k][0] > 0]
        win = '/'.join(steady.get((f'{work}/{tls}.weft.{p}', k[0], k[1]), '-') for p in range(1, pairs + 1))
        print('%-10s %8d %6s %12s %12s %10s  %s' % (k[0], k[1], unit,
              '%.3f' % statistics.median(w) if w else '-', '%.3f' % statistics.median(o) if o else '-',
              '%.2f' % statistics.median(ratios) if ratios else '-', win))
PY
for f in "$WORK"/*.err; do
    if grep -q -i "exception\|error" "$f" 2>/dev/null && [[ "$f" == *weft* ]]; then
        echo "--- $f" >&2; tail -5 "$f" >&2
    fi
done
