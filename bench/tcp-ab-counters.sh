#!/bin/bash
# A/B of two Weft snapshots on one tcp perftest point, alternating (old first in odd pairs, new first in even
# ones), server pinned to core 0 and client to core 1, same counts for both, load1 beside each run. Prints per
# run: the final line's median and average latency (usec) and overall bandwidth (MB/s), the
# steady-state median per iteration, and the client's tcp counters that say what the replay log cost
# (replay_log_bytes = its largest copy ring, stream_acks = ACK frames it sent, ack_asks = its frames that asked).
# Snapshots: git archive REV | tar -x -C DIR, then mvn -B -q -DskipTests package in DIR (./weft builds the AOT
# cache at the first run).
# usage: OLD=DIR NEW=DIR PORT=41100 tcp-ab-counters.sh TEST SIZE ITERS WARMUP PAIRS
t=$1 s=$2 n=$3 w=$4 pairs=$5
port=${PORT:-41100}
run() { # label dir
  local label=$1 d=$2 out
  port=$((port + 1))
  (cd "$d" && WEFT_TLS=tcp taskset -c 0 ./weft perftest -p $port -c 0 > /dev/null 2>&1 &)
  sleep 3
  local load
  load=$(cut -d' ' -f1 /proc/loadavg)
  out=$(cd "$d" && WEFT_TLS=tcp timeout 300 taskset -c 1 ./weft perftest 127.0.0.1 -p $port -c 1 -t "$t" -s "$s" \
    -n "$n" -w "$w" -f 2>&1)
  local final steady counters
  final=$(echo "$out" | grep -E '^ +[0-9]+ +[0-9.]+ ' | tail -1 | awk '{print "median_us=" $2 " avg_us=" $3 " MBps=" $6}')
  steady=$(echo "$out" | grep '# steady state' | sed -E 's/.*(median|median,) ([0-9.]+) usec.*/\2/')
  counters=$(echo "$out" | grep '# counters tcp' | grep -oE '(replay_log_bytes|stream_acks|ack_asks)=[0-9]+' | tr '\n' ' ')
  echo "$t $s $label $final steady_us=$steady load1=$load $counters"
  [[ -n "$final" ]] || echo "$out" | tail -5 | sed 's/^/    no result: /'  # say why
}
for i in $(seq 1 "$pairs"); do
  if (( i % 2 )); then run old "$OLD"; run new "$NEW"; else run new "$NEW"; run old "$OLD"; fi
done
