#!/usr/bin/env python3
# CPU time by thread name over the processes whose command line contains PATTERN (not the weft run launcher),
# sampled from /proc every 0.2 s until they are gone or SECONDS passed: where a job of many JVMs spends its CPU
# (main threads vs JIT compiler vs GC threads). Usage: bench/thread-cpu.py PATTERN SECONDS & ./weft run ...
import os, sys, time, collections, re
pat = sys.argv[1]; dur = float(sys.argv[2])
seen = {}  # (pid,tid) -> (comm, ticks)
runq = []
end = time.time() + dur
started = False
while time.time() < end:
    pids = []
    for p in os.listdir('/proc'):
        if not p.isdigit(): continue
        try:
            cl = open(f'/proc/{p}/cmdline','rb').read()
        except Exception: continue
        if pat.encode() in cl and b'weft.tools.Main' not in cl: pids.append(p)
    if pids: started = True
    elif started: break
    for p in pids:
        try: tasks = os.listdir(f'/proc/{p}/task')
        except Exception: continue
        for t in tasks:
            try:
                s = open(f'/proc/{p}/task/{t}/stat').read()
            except Exception: continue
            r = s.rindex(')'); comm = s[s.index('(')+1:r]; f = s[r+2:].split()
            ticks = int(f[11]) + int(f[12])
            seen[(p,t)] = (re.sub(r'#?\d+$','',comm).strip(), ticks)
    try: runq.append(open('/proc/loadavg').read().split()[3])
    except Exception: pass
    time.sleep(0.2)
agg = collections.Counter(); cnt = collections.Counter()
for (p,t),(c,k) in seen.items(): agg[c]+=k; cnt[c]+=1
tot = sum(agg.values())
print(f"pids {len(set(p for p,_ in seen))} total CPU {tot/100:.1f} s")
for c,k in agg.most_common(20): print(f"  {c:24s} {k/100:7.2f} s  threads {cnt[c]}")
