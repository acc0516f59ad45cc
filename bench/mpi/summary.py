#!/usr/bin/env python3
"""Summary of ./weft bench mpi's raw rows ("side tl run test bytes value unit load1"): per transport, test and
size the median of each side's runs, the ratio weft/ompi and whether it meets the target (time: <= 1.0,
MB/s and Mmsg/s: >= 1.0), the load average range the runs saw, and per transport and test how many sizes met it.
Runs of Weft's active-message path (side weft-am, WEFT_MPI_TRANSPORT=am) add two columns: its median and the
ratio weft-am/weft."""
import statistics, sys
from collections import defaultdict

def main(path):
    vals = defaultdict(list)
    loads = defaultdict(list)
    units = {}
    order = []
    for line in open(path):
        f = line.split()
        if len(f) != 8:
            continue
        side, tl, _run, test, size, value, unit, load = f
        key = (tl, test, int(size))
        if key not in units:
            order.append(key)
        units[key] = unit
        vals[key + (side,)].append(float(value))
        loads[tl].append(float(load))
    met = defaultdict(lambda: [0, 0])
    am = any(k[-1] == "weft-am" for k in vals)
    extra = f" {'weft-am':>11} {'am/tag':>7}" if am else ""
    print(f"{'tl':4} {'test':10} {'bytes':>9} {'unit':7} {'ompi':>11} {'weft':>11} {'weft/ompi':>9}{extra}  target")
    for key in order:
        tl, test, size = key
        unit = units[key]
        o = vals.get(key + ("ompi",))
        w = vals.get(key + ("weft",))
        mo = statistics.median(o) if o else None
        mw = statistics.median(w) if w else None
        higher_better = unit != "us"
        ratio = mw / mo if mo and mw is not None and mo > 0 else None
        verdict = ""
        if ratio is not None:
            ok = ratio >= 1.0 if higher_better else ratio <= 1.0
            verdict = ("ok" if ok else "MISS") + (" (>= 1.0)" if higher_better else " (<= 1.0)")
            met[(tl, test)][0] += ok
            met[(tl, test)][1] += 1
        fmt = lambda v: f"{v:11.4f}" if v is not None and unit == "Mmsg/s" else (f"{v:11.2f}" if v is not None else f"{'-':>11}")
        if am:
            a = vals.get(key + ("weft-am",))
            ma = statistics.median(a) if a else None
            rat = f"{ma / mw:7.2f}" if ma is not None and mw else f"{chr(45):>7}"
            extra = f" {fmt(ma)} {rat}"
        print(f"{tl:4} {test:10} {size:9d} {unit:7} {fmt(mo)} {fmt(mw)} "
              f"{(f'{ratio:9.2f}' if ratio is not None else f'{chr(45):>9}')}{extra}  {verdict}")
    print()
    for tl, ls in loads.items():
        print(f"# {tl}: load average (1 min) at the start of each run: {min(ls):.2f} .. {max(ls):.2f}, "
              f"median {statistics.median(ls):.2f}")
    for (tl, test), (ok, n) in met.items():
        print(f"# {tl} {test:10} target met at {ok} of {n} sizes")

if __name__ == "__main__":
    main(sys.argv[1])
