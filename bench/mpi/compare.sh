#!/usr/bin/env bash
# ./weft bench mpi: Weft's MPI (bench/mpi/OsuMpi.java) beside Open MPI + UCX (bench/mpi/osu_mpi.c, built with
# mpicc here) on 2 ranks, over shared memory and tcp, in alternating runs (Open MPI first), both sides bound
# to cores 0 and 1; bench/mpi/summary.py reports the median of each side per point and the ratio weft/ompi
# against the targets (latency <= 1.0x, bandwidth and message rate >= 1.0x). Without mpicc/mpirun it says
# so and measures Weft alone (MPICC and MPIRUN name other ones).
#   ./weft bench mpi [--repeat N] [--max BYTES] [--sizes B1,B2] [--tls shm,tcp] [--tests t1,t2] [--transports tag,am]
#                    [--out FILE] [--warmup PASSES]
# Tests: latency bw bibw mbw_mr barrier bcast reduce allreduce allgather alltoall (default: all).
# --transports: Weft's message paths to run (WEFT_MPI_TRANSPORT; default tag); am adds a column weft-am.
# --sizes: only these of the sizes up to --max (both sides; OSU_SIZES).
# --warmup: untimed passes of each point's iterations before the timed one (both sides; OSU_WARMUP; default 1,
#           OSU's warm-up). A JVM's first thousands of iterations run before its JIT has compiled them: more
#           passes measure the steady state instead of the warm-up.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
REPEAT=3
MAX=1048576
TLS=shm,tcp
TESTS=all
TRANSPORTS=tag
SIZES=""
WARMUP=1
OUT=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --repeat) REPEAT=$2; shift 2 ;;
        --max) MAX=$2; shift 2 ;;
        --tls) TLS=$2; shift 2 ;;
        --tests) TESTS=$2; shift 2 ;;
        --transports) TRANSPORTS=$2; shift 2 ;;
        --sizes) SIZES=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        --warmup) WARMUP=$2; shift 2 ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "weft bench mpi: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[[ "$REPEAT" =~ ^[1-9][0-9]*$ ]] || { echo "weft bench mpi: --repeat takes a positive number" >&2; exit 2; }
[[ "$MAX" =~ ^[0-9]+$ ]] || { echo "weft bench mpi: --max takes a number of bytes" >&2; exit 2; }
[[ -z "$SIZES" || "$SIZES" =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "weft bench mpi: --sizes takes bytes,bytes,..." >&2; exit 2; }
[[ "$WARMUP" =~ ^[1-9][0-9]*$ ]] || { echo "weft bench mpi: --warmup takes a positive number of passes" >&2; exit 2; }
export OSU_SIZES=$SIZES OSU_WARMUP=$WARMUP
for tl in ${TLS//,/ }; do
    [[ "$tl" == shm || "$tl" == tcp ]] || { echo "weft bench mpi: unknown transport set '$tl' (shm or tcp)" >&2; exit 2; }
done
for tr in ${TRANSPORTS//,/ }; do
    [[ "$tr" == tag || "$tr" == am ]] || { echo "weft bench mpi: unknown message path '$tr' (tag or am)" >&2; exit 2; }
done
ALL_TESTS="latency bw bibw mbw_mr barrier bcast reduce allreduce allgather alltoall"
if [[ "$TESTS" != all ]]; then
    for t in ${TESTS//,/ }; do
        [[ " $ALL_TESTS " == *" $t "* ]] || { echo "weft bench mpi: unknown test '$t' (tests: $ALL_TESTS)" >&2; exit 2; }
    done
fi
[[ -n "$OUT" ]] || OUT="$ROOT/bench-results/mpi-$(date -u +%Y-%m-%d-%H%M%S).txt"
mkdir -p "$(dirname "$OUT")"

WORK=$(mktemp -d)
# on the way out (also when interrupted) stop the job still running, so that mpirun removes its shared memory
trap 'pkill -TERM -P $$ 2>/dev/null; rm -rf "$WORK"' EXIT
RAW="$WORK/raw.txt"
: > "$RAW"

OMPI=1
MPICC=${MPICC:-mpicc}
MPIRUN=${MPIRUN:-mpirun}
if ! command -v "$MPICC" >/dev/null 2>&1 || ! command -v "$MPIRUN" >/dev/null 2>&1; then
    echo "weft bench mpi: Open MPI's mpicc/mpirun not found (Debian: apt-get install openmpi-bin libopenmpi-dev):" >&2
    echo "weft bench mpi: skipping the Open MPI side; measuring Weft alone, no ratios." >&2
    OMPI=0
else
    "$MPICC" -O2 -o "$WORK/osu_mpi" "$ROOT/bench/mpi/osu_mpi.c"
fi
JDK=$("$ROOT/weft" jdk)
# the runs use a copy of the build: a rebuild of the tree while this runs changes nothing under it
mkdir -p "$WORK/lib" "$WORK/classes"
CP=""
for j in $("$ROOT/weft" classpath | tr ':' ' '); do
    cp "$j" "$WORK/lib/"
    CP="$CP${CP:+:}$WORK/lib/$(basename "$j")"
done
"$JDK/bin/javac" -nowarn -cp "$CP" -d "$WORK/classes" "$ROOT/bench/mpi/OsuMpi.java"
# The ranks start as ./weft run starts them: with an AOT cache and its compile thresholds. The JVM takes a
# cache only with the class path it was trained on, so the copy gets a cache of its own (the weft script's
# training run, about 20 s); WEFT_AOT=0 runs without one.
AOT_OPT=()
if [[ "${WEFT_AOT:-1}" != 0 ]]; then
    # shellcheck disable=SC2046 # the thresholds are a list of options
    if "$JDK/bin/java" --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -Xss2m -XX:AOTCacheOutput="$WORK/weft.aot" \
        $("$ROOT/weft" aot-jit) -cp "$CP" weft.tools.Main train >"$WORK/train.log" 2>&1 && [[ -s "$WORK/weft.aot" ]]; then
        AOT_OPT=(-Dweft.tools.aotCache="$WORK/weft.aot")
    else
        echo "weft bench mpi: the AOT cache's training failed; ranks run without it ($(tail -1 "$WORK/train.log"))" >&2
    fi
fi

ROOT_OPT=()
[[ $(id -u) -eq 0 ]] && ROOT_OPT=(--allow-run-as-root)
tests=${TESTS//,/ }
# one job per test, so that the two sides alternate every few seconds rather than every few minutes
[[ "$TESTS" == all ]] && tests=$ALL_TESTS
# rows: side tl run test bytes value unit load1
record() { # side tl run load < output
    awk -v side="$1" -v tl="$2" -v run="$3" -v load="$4" \
        'NF >= 4 && $2 ~ /^[0-9]+$/ { print side, tl, run, $1, $2, $3, $4, load }' >> "$RAW"
}
run_ompi() { # tl run test
    local ucx=sm,self
    [[ $1 == tcp ]] && ucx=tcp,self
    local load; load=$(cut -d' ' -f1 /proc/loadavg)
    # pml ucx only picks shm/tcp when told any transport and device will do (its defaults are RDMA devices)
    "$MPIRUN" "${ROOT_OPT[@]}" --oversubscribe -np 2 --bind-to core -x OSU_SIZES -x OSU_WARMUP --mca pml ucx --mca pml_ucx_tls any \
        --mca pml_ucx_devices any --mca btl ^openib,ofi -x UCX_TLS=$ucx -x UCX_WARN_UNUSED_ENV_VARS=n \
        "$WORK/osu_mpi" "$3" "$MAX" 2>"$WORK/err" | record ompi "$1" "$2" "$load" \
        || { echo "weft bench mpi: Open MPI run failed:" >&2; tail -5 "$WORK/err" >&2; exit 1; }
}
run_weft() { # tl run test transport
    local load; load=$(cut -d' ' -f1 /proc/loadavg)
    local side=weft
    [[ $4 == am ]] && side=weft-am
    # as ./weft run, with the ranks' JVMs given ./weft's options (serial GC)
    WEFT_TLS=$1 OSU_BIND=1 WEFT_MPI_TRANSPORT=$4 "$JDK/bin/java" --enable-native-access=ALL-UNNAMED \
        -XX:+UseSerialGC -XX:TieredStopAtLevel=1 "${AOT_OPT[@]}" -cp "$CP" weft.tools.Main run -n 2 -x WEFT_TLS -x OSU_BIND \
        -x OSU_SIZES -x OSU_WARMUP -x WEFT_MPI_TRANSPORT -J -XX:+UseSerialGC -J -Xss2m -cp "$WORK/classes" OsuMpi "$3" "$MAX" \
        2>"$WORK/err" | record "$side" "$1" "$2" "$load" \
        || { echo "weft bench mpi: Weft run failed:" >&2; tail -5 "$WORK/err" >&2; exit 1; }
}

REV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$ROOT" diff --quiet HEAD -- weft-core weft-mpi 2>/dev/null || REV="$REV+changes"
{
    echo "# ./weft bench mpi --repeat $REPEAT --max $MAX${SIZES:+ --sizes $SIZES}$([[ $WARMUP == 1 ]] || echo " --warmup $WARMUP") --tls $TLS --tests $TESTS --transports $TRANSPORTS"
    echo "# $(date -u +%FT%TZ) $(uname -m) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); weft $REV; JDK $("$JDK/bin/java" -version 2>&1 | head -1)"
    if [[ $OMPI == 1 ]]; then echo "# $("$MPIRUN" --version 2>/dev/null | head -1); $(ucx_info -v 2>/dev/null | sed -n 's/^# *//p' | head -1)"; fi
} | tee "$OUT.head" >&2
for tl in ${TLS//,/ }; do
    for run in $(seq 1 "$REPEAT"); do
        for t in $tests; do
            echo "weft bench mpi: $tl run $run/$REPEAT $t" >&2
            if [[ $OMPI == 1 ]]; then run_ompi "$tl" "$run" "$t"; fi
            for tr in ${TRANSPORTS//,/ }; do
                run_weft "$tl" "$run" "$t" "$tr"
            done
        done
    done
done
{ cat "$OUT.head"; python3 "$ROOT/bench/mpi/summary.py" "$RAW"; echo; echo "# raw: side tl run test bytes value unit load1"; cat "$RAW"; } > "$OUT"
rm -f "$OUT.head"
python3 "$ROOT/bench/mpi/summary.py" "$RAW"
echo "weft bench mpi: results in $OUT" >&2
