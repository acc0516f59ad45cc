#!/bin/bash
# Counts TCP segments and system calls per message of an am_lat run, in a private network
# namespace (only this run's traffic is counted: the host's other TCP users are not).
# Usage (root, from the worktree root): bench/tcp-segments-per-msg.sh weft|ucx [ITERS] [WARMUP] [extra env]
# Prints: segments out per message (OutSegs / messages, both directions, both processes).
# With STRACE=1 in the environment both processes run under strace -f -c (network system calls),
# summaries in /tmp/seg-{srv,cli}.strace.
set -e
tool=$1; n=${2:-20000}; w=${3:-2000}; shift 3 || true
exec unshare -n bash -s "$tool" "$n" "$w" "$@" <<'INNER'
tool=$1; n=$2; w=$3; shift 3
for e in "$@"; do export "$e"; done
ip link set lo up
outsegs() { awk '/^Tcp:/{c++} /^Tcp:/&&c==2{print $12}' /proc/net/snmp; }
port=47311
tr=()
if [ "$STRACE" = 1 ]; then
  tr=(strace -f -c -e trace=sendto,recvfrom,writev,readv,epoll_wait,epoll_ctl,setsockopt -o)
fi
if [ "$tool" = weft ]; then
  srv=(./weft perftest -p $port -c 0); cli=(./weft perftest 127.0.0.1 -p $port -c 1 -x tcp -d lo -t am_lat -s 8 -n $n -w $w)
else
  export UCX_TLS=tcp
  srv=(ucx_perftest -p $port -c 0); cli=(ucx_perftest 127.0.0.1 -p $port -c 1 -x tcp -d lo -t am_lat -s 8 -n $n -w $w)
fi
if [ ${#tr[@]} -gt 0 ]; then srv=("${tr[@]}" /tmp/seg-srv.strace "${srv[@]}"); cli=("${tr[@]}" /tmp/seg-cli.strace "${cli[@]}"); fi
"${srv[@]}" > /tmp/seg-srv.$$ 2>&1 &
spid=$!
for i in $(seq 1 200); do ss -ltn | grep -q ":$port " && break; sleep 0.1; done
before=$(outsegs)
"${cli[@]}" > /tmp/seg-cli.$$ 2>&1
after=$(outsegs)
wait $spid || true
msgs=$(( 2 * (n + w) ))
echo "$tool $* : OutSegs $((after - before)) for $msgs messages = $(awk -v s=$((after - before)) -v m=$msgs 'BEGIN{printf "%.3f", s/m}') segments/message"
grep -E "^ +[0-9]+ " /tmp/seg-cli.$$ | tail -1 | sed 's/^/  last perftest line: /'
rm -f /tmp/seg-srv.$$ /tmp/seg-cli.$$
INNER
