#!/usr/bin/env python3
"""Steady-state sweep over message sizes (issue 20): UCX's ucx_perftest beside one or two Weft builds.

For every point (transport, test, size) it runs PAIRS rounds; each round runs UCX, then every Weft build
given (--weft DIR, repeatable: e.g. a snapshot of the base commit and the working tree), each side's server
pinned to core 0 and client to core 1 with the same counts (bench/compare.py's runner). It prints per round
the overall and typical (50th percentile) latency or the overall bandwidth, and per point the medians, the
median ratios weft/ucx and, with two builds, second/first; the load average beside every point.
tcp ucp_get is compared with UCX's tcp tag_lat (UCX's tcp has no get). Run from a Weft checkout's root:
  bench/sweep.py --weft /tmp/base --weft . [--pairs 3] [--tl shm] [--test tag_lat] [--size 16384 ...]
"""
import argparse, os, statistics, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402

SIZES = [8, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304]
TESTS = ["tag_lat", "tag_bw", "ucp_put_lat", "ucp_get"]


def counts(tl, s):
    """(iterations, warm-up): >= 10000 warm-up (3000 at 4 MiB), short measured phases for a shared machine."""
    if tl == "shm":
        if s <= 1024:
            return 200000, 50000
        if s <= 65536:
            return 50000, 20000
        return (5000, 10000) if s <= 1048576 else (2000, 3000)
    if s <= 4096:
        return 30000, 10000
    if s <= 65536:
        return 20000, 10000
    return (2000, 10000) if s <= 1048576 else (1000, 3000)


def load():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--weft", action="append", required=True, help="root of a built Weft checkout")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--tl", action="append")
    ap.add_argument("--test", action="append")
    ap.add_argument("--size", action="append", type=int)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--iters", type=int, help="measured iterations (else by size, see counts())")
    ap.add_argument("--warmup", type=int, help="warm-up iterations (else by size)")
    ap.add_argument("--rank", default=None, help="percentile reported as typical latency by both tools (-R)")
    a = ap.parse_args()
    print("# %s, load %s; weft builds: %s; %d rounds per point (UCX, then each build)" % (
        os.popen("date -u +%FT%TZ").read().strip(), " ".join(open("/proc/loadavg").read().split()[:3]),
        " ".join(a.weft), a.pairs), flush=True)
    print("# typical = the %s percentile of latency" % (a.rank or "50th"), flush=True)
    for tl in a.tl or ["shm", "tcp"]:
        env = {"shm": ({"WEFT_TLS": "shm"}, {"UCX_TLS": "sm"}), "tcp": ({"WEFT_TLS": "tcp"}, {"UCX_TLS": "tcp"})}[tl]
        for test in a.test or TESTS:
            for s in a.size or SIZES:
                n, w = counts(tl, s)
                n, w = a.iters or n, a.warmup or w
                ucx_test = "tag_lat" if tl == "tcp" and test == "ucp_get" else test
                bw = test.endswith("_bw")
                col = 5 if bw else 3
                figs = [[] for _ in range(1 + len(a.weft))]
                typ = [[] for _ in range(1 + len(a.weft))]
                l0 = load()
                for _ in range(a.pairs):
                    sides = [(["ucx_perftest"], env[1], ucx_test)] + [
                        ([os.path.join(os.path.abspath(d), "weft"), "perftest"], env[0], test) for d in a.weft]
                    for k, (cmd, e, t) in enumerate(sides):
                        v, err = compare.run_pair(cmd, e, ["-t", t, "-s", str(s), "-n", str(n), "-w", str(w)]
                                                  + (["-R", a.rank] if a.rank else []),
                                                  a.timeout)
                        if v is None:
                            print("  side %d failed: %s" % (k, err), flush=True)
                            v = [float("nan")] * 8
                        figs[k].append(v[col])
                        typ[k].append(v[1])
                med = [statistics.median(f) for f in figs]
                unit = "MB/s" if bw else "us"
                line = "%s %s %d (-n %d -w %d, load %s..%s): %s" % (
                    tl, test, s, n, w, l0, load(),
                    " | ".join("%s %s" % (nm, " ".join("%.4g" % x for x in f)) for nm, f in
                               zip(["ucx"] + ["w%d" % i for i in range(len(a.weft))], figs)))
                print(line, flush=True)
                ratios = ["w%d/ucx %.3f" % (i, statistics.median(
                    [w_ / u if u else float("inf") for w_, u in zip(figs[i + 1], figs[0])]))
                          for i in range(len(a.weft))]
                if not bw:
                    ratios += ["typ w%d/ucx %.3f" % (i, statistics.median(
                        [w_ / u if u else float("inf") for w_, u in zip(typ[i + 1], typ[0])]))
                               for i in range(len(a.weft))]
                if len(a.weft) == 2:
                    ratios.append("w1/w0 %.3f" % statistics.median(
                        [y / x if x else float("inf") for x, y in zip(figs[1], figs[2])]))
                print("  %s median %s; %s" % (unit, " ".join("%.4g" % m for m in med), ", ".join(ratios)),
                      flush=True)


if __name__ == "__main__":
    main()
