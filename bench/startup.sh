#!/usr/bin/env bash
# Startup of a two-PE job against its floor (issue 20): the wall time of `./weft run -n 2` of the compiled
# examples/HelloWeft.java, beside two empty JVMs started together and awaited, ROUNDS alternating rounds,
# medians; beside each the CPU seconds of the whole job (launcher and PEs, user + sys: on a loaded machine
# the steadier figure). Extra Weft checkouts (built) can be given to compare before/after in the same rounds.
#   bench/startup.sh [ROUNDS] [WEFT_DIR...]          (default: 5 rounds, this checkout)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}; shift || true
DIRS=("$@"); [[ ${#DIRS[@]} -gt 0 ]] || DIRS=("$PWD")
JDK=$(./weft jdk); JAVA="$JDK/bin/java"
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
echo 'public class Empty { public static void main(String[] a) { } }' > "$TMP/Empty.java"
"$JDK/bin/javac" -d "$TMP" "$TMP/Empty.java"
for d in "${DIRS[@]}"; do
    mkdir -p "$TMP/$(basename "$d")"
    "$JDK/bin/javac" -d "$TMP/$(basename "$d")" -cp "$("$d/weft" classpath)" examples/HelloWeft.java
done
now() { date +%s.%N; }
declare -A T C
TIMEFORMAT='%U %S' # bash's time: user and sys of the job (the launcher waits for its PEs, so they count)
echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS alternating rounds"
for r in $(seq "$ROUNDS"); do
    t0=$(now); "$JAVA" -cp "$TMP" Empty & "$JAVA" -cp "$TMP" Empty; wait; t1=$(now)
    T[floor]+="$(echo "$t1 - $t0" | bc) "
    for d in "${DIRS[@]}"; do
        t0=$(now)
        { time "$d/weft" run -n 2 -cp "$TMP/$(basename "$d")" HelloWeft > /dev/null; } 2> "$TMP/cpu"
        t1=$(now)
        T[$d]+="$(echo "$t1 - $t0" | bc) "
        C[$d]+="$(tail -n1 "$TMP/cpu" | awk '{print $1 + $2}') "
    done
    echo "round $r: load $(cut -d' ' -f1 /proc/loadavg)"
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
f=$(echo "${T[floor]}" | median)
printf "%-40s median %6.3f s   (%s)\n" "two empty JVMs (floor)" "$f" "${T[floor]}"
for d in "${DIRS[@]}"; do
    m=$(echo "${T[$d]}" | median)
    printf "%-40s median %6.3f s = %5.1fx floor   (%s)\n" "$d: weft run -n 2 HelloWeft" "$m" "$(echo "$m / $f" | bc -l)" "${T[$d]}"
    printf "%-40s median %6.3f CPU s (launcher + PEs)   (%s)\n" "" "$(echo "${C[$d]}" | median)" "${C[$d]}"
done
