#!/usr/bin/env python3
"""What a short perftest run's client JVM did inside its measured phase: classes loaded, JIT compiles and
deoptimizations, from its -Xlog file. The log carries no marker of the phase: its end is taken as the first
event of the code that runs right after the measured loop (the steady-state analysis, the counters report, or
picocli's exit), its start as that end minus the measured time the client printed ("in N ms").
  java ... -Xlog:class+load=info,jit+compilation=debug,deoptimization=debug:file=LOG:uptime,tags \\
       weft.tools.Main perftest HOST ... 2> ERR
  bench/cold-phases.py LOG ERR
"""
import re, sys

END_MARKS = ("LatencyTrace::steadyState", "UcpSide::lambda$counters", "IExitCodeGenerator")


def main():
    log, err = sys.argv[1], sys.argv[2]
    measured = int(re.search(r"measured phase: \d+ ms in (\d+) ms", open(err).read()).group(1)) / 1000
    ev = []
    for line in open(log):
        m = re.match(r"\[(\d+\.\d+)s\]\[([\w,+]+)\s*\] ?(.*)", line)
        if m:
            ev.append((float(m.group(1)), m.group(2), m.group(3)))
    end = next(t for t, _, text in ev if any(k in text for k in END_MARKS))
    start = end - measured
    inside = [e for e in ev if start <= e[0] < end]
    cls = [e for e in inside if e[1].startswith("class")]
    comp = [e for e in inside if e[1].startswith("jit") and "made not entrant" not in e[2]]
    c4 = [e for e in comp if re.search(r"\s4\s", e[2][:30])]
    deo = [e for e in inside if e[1].startswith("deopt") or "made not entrant" in e[2]]
    print("measured phase %.3f-%.3f s (%.0f ms)" % (start, end, measured * 1000))
    print("  classes loaded: %d" % len(cls))
    for e in cls[:15]:
        print("    " + e[2][:120])
    print("  compiles: %d (C2: %d)" % (len(comp), len(c4)))
    for e in comp[:40]:
        print("    %.3f %s" % (e[0], e[2][:110]))
    print("  made not entrant / deoptimized: %d" % len(deo))
    for e in deo[:10]:
        print("    %.3f %s" % (e[0], e[2][:130]))


if __name__ == "__main__":
    main()
