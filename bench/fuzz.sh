#!/usr/bin/env bash
# Fuzzes one decoder of weft-core for a while (coverage-guided, Jazzer):
#   bench/fuzz.sh WorkerAddressFuzzTest#unpack 10      ten minutes (default 2)
#   bench/fuzz.sh list                                  the fuzz targets
# The corpus grows in weft-core/.cifuzz-corpus/ (kept between runs, not committed); a crashing input is
# written to weft-core/src/test/resources/<package>/<Class>Inputs/<method>/crash-<sha1>, where the normal
# test run (./weft test, regression mode) replays it from then on: fix the code, give the file a
# descriptive name and commit it. One target per run (Jazzer fuzzes one test per JVM).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
if [[ "${1:-}" == "" || "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
    sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
if [[ "$1" == "list" ]]; then
    grep -rl '@FuzzTest' weft-core/src/test/java | sort | while read -r f; do
        c=$(basename "$f" .java)
        grep -A1 '@FuzzTest' "$f" | sed -n 's/.*void \([a-zA-Z0-9_]*\)(.*/\1/p' | sed "s/^/$c#/"
    done
    exit 0
fi
TARGET=$1
MINUTES=${2:-2}
if [[ -z "${JAVA_HOME:-}" || ! -x "$JAVA_HOME/bin/javac" ]] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -q '"2[5-9]'; then
    for j in /usr/lib/jvm/*25* /usr/lib/jvm/*; do
        if [[ -x "$j/bin/javac" ]] && "$j/bin/java" -version 2>&1 | grep -q '"2[5-9]'; then
            export JAVA_HOME=$j
            break
        fi
    done
fi
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
JAZZER_FUZZ=1 exec mvn -B -Dstyle.color=never -pl weft-core test-compile surefire:test \
    -Dtest="$TARGET" -Djazzer.max_duration="${MINUTES}m" -Dsurefire.failIfNoSpecifiedTests=false
