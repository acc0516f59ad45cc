#!/bin/bash
# Alternates, per round: Weft am_lat 8 B with one shared socket (WEFT_TCP_SHARED_SOCKET=y), with one socket
# per direction (=n), and UCX 1.13 (UCX_TLS=tcp ucx_perftest -x tcp -d lo); prints the typical one-way
# latency of each and the per-round ratios. Usage, from the worktree root: bench/tcp-shared-ab.sh ROUNDS
# Pinned as the anchor is: server -c 0, client -c 1.
port=47322
waitl() { for i in $(seq 1 300); do ss -ltn | grep -q ":$port " && break; sleep 0.05; done; }
runw() {
  WEFT_TCP_SHARED_SOCKET=$1 ./weft perftest -p $port -c 0 > /dev/null 2>&1 & local s=$!; waitl
  WEFT_TCP_SHARED_SOCKET=$1 ./weft perftest 127.0.0.1 -p $port -c 1 -x tcp -d lo -t am_lat -s 8 -n 100000 -w 30000 2>&1 | awk '/^Final:/{print $3}'
  wait $s
}
runu() {
  UCX_TLS=tcp ucx_perftest -p $port -c 0 > /dev/null 2>&1 & local s=$!; waitl
  UCX_TLS=tcp ucx_perftest 127.0.0.1 -p $port -c 1 -x tcp -d lo -t am_lat -s 8 -n 100000 -w 30000 2>&1 | awk '/^Final:/{print $3}'
  wait $s
}
for r in $(seq 1 $1); do y=$(runw y); n=$(runw n); u=$(runu); echo "round $r load $(cut -d' ' -f1 /proc/loadavg): typical one-way us: shared $y  per-direction $n  ucx $u  shared/ucx $(awk -v a=$y -v b=$u 'BEGIN{printf "%.3f", a/b}')  per-direction/ucx $(awk -v a=$n -v b=$u 'BEGIN{printf "%.3f", a/b}')  per-direction/shared $(awk -v a=$n -v b=$y 'BEGIN{printf "%.3f", a/b}')"; done
