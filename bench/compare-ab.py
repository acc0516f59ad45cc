#!/usr/bin/env python3
"""Before/after check of two Weft builds against the same native anchor: runs a comparison script
(bench/compare-uct.sh or bench/compare-ucp.sh, one pair per line) from each checkout in turn, ROUNDS times,
alternating, and prints per line the median weft/ucx ratio of each build and their quotient after/before.
The anchor (ucx_perftest) runs beside each build, so drift of the machine between rounds cancels out.

  bench/compare-ab.py --before /tmp/base --after . [--rounds 3] [--script bench/compare-ucp.sh]
                      [--filter "8 B"]        (> bench/results/DATE-ab.txt)

Each checkout must be built (./weft builds when its sources changed; make snapshots with
`git archive REV | tar -x -C DIR`). Needs ucx_perftest, as the scripts do.
"""
import argparse
import re
import statistics
import subprocess
import sys
import time

LINE = re.compile(r"^(?P<label>.+?): weft/ucx.*? (?P<metric>lat|bw|mr) overall ratio median (?P<ratio>[0-9.]+|inf)"
                  r"(?:.*?typical median (?P<typical>[0-9.]+|inf))?")


def run(directory, script, filt):
    cmd = ["bash", script, "1"] + ([filt] if filt else [])
    out = subprocess.run(cmd, cwd=directory, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    found = {}
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            found[m.group("label")] = (m.group("metric"), float(m.group("ratio")),
                                       float(m.group("typical")) if m.group("typical") else None)
        elif "side failed" in line:
            print("#", directory, line, flush=True)
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--script", default="bench/compare-ucp.sh")
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    sides = {"before": a.before, "after": a.after}
    res = {s: {} for s in sides}
    metric = {}
    for r in range(a.rounds):
        for s, d in sides.items():
            load = open("/proc/loadavg").read().split()[0]
            t0 = time.time()
            found = run(d, a.script, a.filter)
            print("# round %d %s (%s): %d lines in %.0f s, load %s" % (r + 1, s, d, len(found), time.time() - t0, load),
                  flush=True)
            for label, (m, ratio, typ) in found.items():
                metric[label] = m
                res[s].setdefault(label, []).append((ratio, typ))
    print("%-34s %-4s %22s %22s %9s %9s" % ("line", "kind", "weft/ucx before", "weft/ucx after", "after/bef",
                                               "typ a/b"))
    for label in metric:
        b = res["before"].get(label, [])
        f = res["after"].get(label, [])
        if not b or not f:
            print("%-34s missing on one side" % label)
            continue
        mb = statistics.median(x[0] for x in b)
        mf = statistics.median(x[0] for x in f)
        tb = [x[1] for x in b if x[1] is not None]
        tf = [x[1] for x in f if x[1] is not None]
        typ = "%9.3f" % (statistics.median(tf) / statistics.median(tb)) if tb and tf else "%9s" % "-"
        print("%-34s %-4s %8.3f (%s) %8.3f (%s) %9.3f %s" % (
            label, metric[label], mb, ",".join("%.2f" % x[0] for x in b), mf, ",".join("%.2f" % x[0] for x in f),
            mf / mb if mb else float("inf"), typ), flush=True)
    print("# lat: a quotient above 1 is slower after; bw and mr: below 1 is slower after")


if __name__ == "__main__":
    sys.exit(main())
