#!/usr/bin/env python3
"""UCP-level side-by-side runs of ./weft perftest and ucx_perftest, reusing compare-ucx.py's pair runner.

Like compare-ucx.py (alternating pairs, UCX first, both pinned to cores 0/1, ratio = weft/ucx of the
overall column), but prints for every pair both the overall figure and, for latency tests, the typical
one (the -R 50 percentile column, less hurt by preemption on a shared machine), then the median and the
spread (min..max) of the per-pair ratios of each. Exit 0 when the median overall ratio meets the target.
--ucx-test compares with another UCX test of the same size (e.g. weft ucp_get against UCX tag_lat);
PERF_PORTS=LOW-HIGH takes the control ports from that range (else any free port).
"""
import argparse, os, runpy, shlex, statistics, sys

here = os.path.dirname(os.path.abspath(__file__))
cmp_path = os.environ.get("COMPARE") or os.path.join(here, "..", "..", "shared", "bench", "compare-ucx.py")
if not os.path.exists(cmp_path):
    cmp_path = "/work/shared/bench/compare-ucx.py"
cu = runpy.run_path(cmp_path, run_name="compare_ucx")
COLS = {"lat": 3, "bw": 5, "mr": 7}
_next_port = [None]

def port():
    r = os.environ.get("PERF_PORTS")
    if not r:
        return cu["free_port"]()
    lo, hi = (int(x) for x in r.split("-"))
    for _ in range(hi - lo + 1):
        p = _next_port[0] if _next_port[0] is not None else lo
        _next_port[0] = lo + (p + 1 - lo) % (hi - lo + 1)
        if not cu["listening"](p):
            return p
    sys.exit("no free port in PERF_PORTS=" + r)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", required=True); ap.add_argument("--test", required=True)
    ap.add_argument("--ucx-test", default=None)
    ap.add_argument("--size", default="8"); ap.add_argument("--iters", default="100000")
    ap.add_argument("--warmup", default="20000"); ap.add_argument("--metric", choices=COLS, default="lat")
    ap.add_argument("--weft-env", default=""); ap.add_argument("--ucx-env", default="")
    ap.add_argument("--weft-args", default=""); ap.add_argument("--ucx-args", default="")
    ap.add_argument("--pairs", type=int, default=3); ap.add_argument("--timeout", type=int, default=180)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--max-ratio", type=float); g.add_argument("--min-ratio", type=float)
    a = ap.parse_args()
    env_of = lambda s: dict(kv.split("=", 1) for kv in s.split())
    common = ["-s", a.size, "-n", a.iters, "-w", a.warmup]
    ucx_common = ["-t", a.ucx_test or a.test] + common
    common = ["-t", a.test] + common
    c = COLS[a.metric]
    overall, typical = [], []
    for i in range(a.pairs):
        u, err = cu["run_pair"](["ucx_perftest"], env_of(a.ucx_env), ucx_common + shlex.split(a.ucx_args), port(), a.timeout)
        if u is None: print("ucx side failed:", err); sys.exit(2)
        w, err = cu["run_pair"](["./weft", "perftest"], env_of(a.weft_env), common + shlex.split(a.weft_args), port(), a.timeout)
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
    vs = "" if not a.ucx_test else " (ucx %s)" % a.ucx_test
    s = "%s: weft/ucx%s %s overall ratio median %.3f (min %.3f, max %.3f, %d pairs)" % (
        a.label, vs, a.metric, med, min(overall), max(overall), len(overall))
    if typical:
        s += "; typical median %.3f (min %.3f, max %.3f)" % (statistics.median(typical), min(typical), max(typical))
    print(s + ", target %s: %s" % (target, "met" if ok else "NOT met"), flush=True)
    sys.exit(0 if ok else 1)

if __name__ == "__main__":
    main()
