#!/usr/bin/env python3
"""Short runs at OSU's counts: ucx_perftest beside one or more Weft checkouts, alternating, in new processes.

For each test (default: issue 20's short-run lines; 100 warm-up + 10,000 measured iterations, 10 + 1,000 at
1 MiB) and each of PAIRS rounds it runs UCX first, then every Weft checkout given with --weft DIR[=LABEL] (its
./weft perftest, server pinned to core 0, client to core 1, the same counts), and prints per run the overall
figure, Weft's steady-state iteration and JIT time inside the measured phase, and the load; then per side the
median ratio to UCX. Example (before/after, from a Weft checkout's root):
  git archive BASE | tar -x -C /tmp/base && (cd /tmp/base && ./weft build)
  PERF_PORTS=20000-20999 bench/compare-cold.py --pairs 3 --weft /tmp/base=before --weft .=after
"""
import argparse, os, re, statistics, subprocess, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402  (run_pair's server/port handling is shared)

TESTS = [  # label, weft test, ucx test, size, metric, ucx factor
    ("shm tag_lat 8 B", "tag_lat", "tag_lat", 8, "lat", 1, "shm"),
    ("shm ucp_put_lat 8 B", "ucp_put_lat", "ucp_put_lat", 8, "lat", 1, "shm"),
    ("shm ucp_get 8 B", "ucp_get", "ucp_get", 8, "lat", 1, "shm"),
    ("shm ucp_fadd 8 B", "ucp_fadd", "ucp_fadd", 8, "lat", 1, "shm"),
    ("shm tag_bw 1 MiB", "tag_bw", "tag_bw", 1 << 20, "bw", 1, "shm"),
    ("tcp tag_lat 8 B", "tag_lat", "tag_lat", 8, "lat", 1, "tcp"),
    ("tcp ucp_put_lat 8 B", "ucp_put_lat", "ucp_put_lat", 8, "lat", 1, "tcp"),
    ("tcp ucp_get 8 B (ucx: 2x tag_lat)", "ucp_get", "tag_lat", 8, "lat", 2, "tcp"),
    ("tcp ucp_fadd 8 B", "ucp_fadd", "ucp_fadd", 8, "lat", 1, "tcp"),
    ("tcp tag_bw 1 MiB", "tag_bw", "tag_bw", 1 << 20, "bw", 1, "tcp"),
]
ENV = {"shm": ({"WEFT_TLS": "shm"}, {"UCX_TLS": "sm"}), "tcp": ({"WEFT_TLS": "tcp"}, {"UCX_TLS": "tcp"})}


def run(cmd, env_extra, args, timeout):
    """One server + client run; returns (eight numbers, steady iteration, jit ms) or raises."""
    env = dict(os.environ)
    env.update(env_extra)
    port = compare.next_port()
    srv = subprocess.Popen(cmd + args + ["-p", str(port), "-c", "0"], env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, start_new_session=True)
    t0 = time.time()
    while not compare.listening(port):
        if srv.poll() is not None or time.time() - t0 > 120:
            compare.stop(srv)
            raise RuntimeError("server did not listen")
        time.sleep(0.05)
    try:
        cli = subprocess.run(cmd + ["127.0.0.1"] + args + ["-p", str(port), "-c", "1", "-f"], env=env,
                             capture_output=True, text=True, timeout=timeout)
    finally:
        try:
            srv.wait(timeout=15)
        except subprocess.TimeoutExpired:
            compare.stop(srv)
    v = compare.final_line(cli.stdout)
    if v is None:
        raise RuntimeError("no result line: " + (cli.stdout + cli.stderr)[-300:])
    st = re.search(r"# steady state: (?:from iteration (\d+)|not reached in (\d+))", cli.stderr)
    jit = re.search(r"# JIT compilation during the measured phase: (\d+) ms", cli.stderr)
    steady = None if not st else ("never" if st.group(2) else int(st.group(1)))
    return v, steady, (int(jit.group(1)) if jit else None)


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--weft", action="append", required=True, help="DIR[=LABEL] of a built Weft checkout")
    ap.add_argument("--only", default="", help="run only tests whose label contains this")
    ap.add_argument("--timeout", type=int, default=300)
    a = ap.parse_args()
    sides = [(w.split("=", 1) + [os.path.basename(os.path.abspath(w))])[:2] for w in a.weft]
    print("# %s %d cores, load %s; %s; counts: OSU's (100 + 10,000; 10 + 1,000 at 1 MiB); pinned 0/1" % (
        time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), os.cpu_count(), load(),
        subprocess.run(["sh", "-c", "ucx_info -v | sed -n 's/^# *//p' | head -1"], capture_output=True,
                       text=True).stdout.strip()), flush=True)
    for label, wt, ut, size, metric, factor, tl in TESTS:
        if a.only and a.only not in label:
            continue
        large = size >= 8192
        counts = ["-s", str(size), "-n", "1000" if large else "10000", "-w", "10" if large else "100"]
        col = 5 if metric == "bw" else 3
        weft_env, ucx_env = ENV[tl]
        ratios = {name: [] for _, name in sides}
        print("== " + label, flush=True)
        for i in range(a.pairs):
            try:
                u, _, _ = run(["ucx_perftest"], ucx_env, ["-t", ut] + counts, a.timeout)
            except Exception as e:  # a failed side is reported, the others still run
                print("  pair %d ucx failed: %s" % (i + 1, e), flush=True)
                continue
            uv = u[col] * factor
            line = "  pair %d [load %s] ucx %.4g" % (i + 1, load(), uv)
            for d, name in sides:
                try:
                    w, steady, jit = run([os.path.join(d, "weft"), "perftest"], weft_env, ["-t", wt] + counts,
                                         a.timeout)
                except Exception as e:
                    line += " | %s failed: %s" % (name, e)
                    continue
                r = w[col] / uv if uv else float("inf")
                ratios[name].append(r)
                line += " | %s %.4g (x%.2f, p50 %.3g, steady@%s, jit %s ms)" % (name, w[col], r, w[1], steady, jit)
            print(line, flush=True)
        for _, name in sides:
            if ratios[name]:
                print("  %s: %s weft/ucx median %.2f (min %.2f, max %.2f, %d pairs)" % (
                    label, name, statistics.median(ratios[name]), min(ratios[name]), max(ratios[name]),
                    len(ratios[name])), flush=True)


if __name__ == "__main__":
    main()
