#!/usr/bin/env bash
# Scale on one box (issue 17 section 5): the wall time of `weft run -n N examples/AllPairs.java` (every PE
# connects to every other, one 8-byte tagged message each way, a barrier) beside its floor, N empty JVMs
# started together and awaited; ROUNDS alternating rounds, medians, the load beside every round. Extra Weft
# checkouts (built) are run in the same rounds, to compare before/after. Extra -x/-J options for every job
# come from SCALE_OPTS (e.g. SCALE_OPTS="-x WEFT_TLS=tcp").
#   bench/scale.sh N [ROUNDS] [WEFT_DIR...]        (default: 3 rounds, this checkout)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:?usage: bench/scale.sh N [ROUNDS] [WEFT_DIR...]}; shift
ROUNDS=${1:-3}; shift || true
DIRS=("$@"); [[ ${#DIRS[@]} -gt 0 ]] || DIRS=("$PWD")
JDK=$(./weft jdk); JAVA="$JDK/bin/java"
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
echo 'public class Empty { public static void main(String[] a) { } }' > "$TMP/Empty.java"
"$JDK/bin/javac" -d "$TMP" "$TMP/Empty.java"
for d in "${DIRS[@]}"; do "$d/weft" classpath > /dev/null; done   # built, AOT cache trained
now() { date +%s.%N; }
load() { cut -d' ' -f1 /proc/loadavg; }
declare -A T
echo "# $(date -u +%FT%TZ) $(nproc) cores, $N PEs, ${SCALE_OPTS:-no extra options}, $ROUNDS alternating rounds"
for r in $(seq "$ROUNDS"); do
    l0=$(load); t0=$(now)
    for i in $(seq "$N"); do "$JAVA" -cp "$TMP" Empty & done; wait
    t1=$(now); T[floor]+="$(echo "$t1 - $t0" | bc) "
    line="round $r: floor $(echo "$t1 - $t0" | bc | cut -c1-6) s (load $l0)"
    for d in "${DIRS[@]}"; do
        l0=$(load); t0=$(now)
        # shellcheck disable=SC2086
        "$d/weft" run -n "$N" --timeout 900 -x WEFT_BOOTSTRAP_TIMEOUT=300s ${SCALE_OPTS:-} examples/AllPairs.java \
            > "$TMP/out" 2>&1 || { cat "$TMP/out"; exit 1; }
        t1=$(now); T[$d]+="$(echo "$t1 - $t0" | bc) "
        line+="; $d $(echo "$t1 - $t0" | bc | cut -c1-6) s (load $l0)"
    done
    echo "$line"
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
f=$(echo "${T[floor]}" | median)
printf "%-44s median %7.2f s\n" "$N empty JVMs (floor)" "$f"
for d in "${DIRS[@]}"; do
    m=$(echo "${T[$d]}" | median)
    printf "%-44s median %7.2f s = %5.1fx floor\n" "$d: AllPairs -n $N" "$m" "$(echo "$m / $f" | bc -l)"
done
