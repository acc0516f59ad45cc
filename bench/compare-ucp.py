#!/usr/bin/env python3
"""UCP-level side-by-side runs of ./weft perftest and ucx_perftest, reusing compare-ucx.py's pair runner.

Like compare-ucx.py (alternating pairs, UCX first, both pinned to cores 0/1, ratio = weft/ucx of the
overall column), but prints for every pair both the overall figure and, for latency tests, the typical
one (the -R 50 percentile column, less hurt by preemption on a shared machine), then the median and the
spread (min..max) of the per-pair ratios of each. Exit 0 when the median overall ratio meets the target.
"""
import argparse, os, runpy, shlex, statistics, sys

here = os.path.dirname(os.path.abspath(__file__))
cmp_path = os.environ.get("COMPARE") or os.path.join(here, "..", "..", "shared", "bench", "compare-ucx.py")
if not os.path.exists(cmp_path):
    cmp_path = "/work/shared/bench/compare-ucx.py"
cu = runpy.run_path(cmp_path, run_name="compare_ucx")
COLS = {"lat": 3, "bw": 5, "mr": 7}

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", required=True); ap.add_argument("--test", required=True)
    ap.add_argument("--size", default="8"); ap.add_argument("--iters", default="100000")
    ap.add_argument("--warmup", default="20000"); ap.add_argument("--metric", choices=COLS, default="lat")
    ap.add_argument("--weft-env", default=""); ap.add_argument("--ucx-env", default="")
    ap.add_argument("--weft-args", default=""); ap.add_argument("--ucx-args", default="")
    ap.add_argument("--pairs", type=int, default=3); ap.add_argument("--timeout", type=int, default=180)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--max-ratio", type=float); g.add_argument("--min-ratio", type=float)
    a = ap.parse_args()
    env_of = lambda s: dict(kv.split("=", 1) for kv in s.split())
    common = ["-t", a.test, "-s", a.size, "-n", a.iters, "-w", a.warmup]
    c = COLS[a.metric]
    overall, typical = [], []
    for i in range(a.pairs):
        u, err = cu["run_pair"](["ucx_perftest"], env_of(a.ucx_env), common + shlex.split(a.ucx_args), cu["free_port"](), a.timeout)
        if u is None: print("ucx side failed:", err); sys.exit(2)
        w, err = cu["run_pair"](["./weft", "perftest"], env_of(a.weft_env), common + shlex.split(a.weft_args), cu["free_port"](), a.timeout)
        if w is None: print("weft side failed:", err); sys.exit(2)
        r = w[c] / u[c] if u[c] else float("inf"); overall.append(r)
        line = "pair %d: overall ucx %.4g weft %.4g ratio %.3f" % (i + 1, u[c], w[c], r)
        if a.metric == "lat":
            t = w[1] / u[1] if u[1] else float("inf"); typical.append(t)
            line += " | typical(50%%) ucx %.4g weft %.4g ratio %.3f" % (u[1], w[1], t)
        print(line, flush=True)
    med = statistics.median(overall)
    ok = med <= a.max_ratio if a.max_ratio is not None else med >= a.min_ratio
    target = ("<= %.2f" % a.max_ratio) if a.max_ratio is not None else (">= %.2f" % a.min_ratio)
    s = "%s: weft/ucx %s overall ratio median %.3f (min %.3f, max %.3f, %d pairs)" % (
        a.label, a.metric, med, min(overall), max(overall), len(overall))
    if typical:
        s += "; typical median %.3f (min %.3f, max %.3f)" % (statistics.median(typical), min(typical), max(typical))
    print(s + ", target %s: %s" % (target, "met" if ok else "NOT met"), flush=True)
    sys.exit(0 if ok else 1)

if __name__ == "__main__":
    main()
