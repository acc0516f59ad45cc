#!/bin/bash
# Alternates two Weft builds (old = OLD dir, new = NEW dir, default /tmp/base and /tmp/new: snapshots made with
# git archive REV | tar -x -C DIR and built with ./weft build) on one perftest point; prints each pair and new/old.
# usage: ab.sh TLS TEST SIZE ITERS WARMUP METRICCOL PAIRS  -> prints old/new figures and ratio new/old per pair
tls=$1 t=$2 s=$3 n=$4 w=$5 col=$6 pairs=$7
run() { # dir
  local d=$1 port=$((20000 + RANDOM % 20000))
  (cd $d; WEFT_TLS=$tls ./weft perftest -p $port -c 0 > /dev/null 2>&1 &)
  sleep 2.5
  (cd $d; WEFT_TLS=$tls timeout 300 ./weft perftest 127.0.0.1 -p $port -c 1 -t $t -s $s -n $n -w $w -f 2>/dev/null | tail -1 | tr ',' ' ' | awk -v c=$col '{print $c}')
}
for i in $(seq 1 $pairs); do o=$(run "${OLD:-/tmp/base}"); nw=$(run "${NEW:-/tmp/new}"); echo "$tls $t $s pair $i: old $o new $nw ratio $(awk -v a=$nw -v b=$o 'BEGIN{printf "%.3f", a/b}')"; done
