#!/usr/bin/env python3
"""Side-by-side runs of ./weft perftest and native ucx_perftest: alternating pairs, median ratio.

Both tools take the same roles (no host: server; a host: client), the same -t/-s/-n/-w/-c/-p options,
and with -f end with the same line of eight numbers:
  iterations, typical_lat, avg_lat, overall_lat, avg_bw, overall_bw, avg_mr, overall_mr
Each pair runs UCX first, then Weft, each side's server pinned to core 0 and client to core 1. For every
pair it prints the overall figure of the chosen metric and, for latency, the typical one (the 50th
percentile column, less hurt by preemption on a shared machine); then the median and spread (min..max)
of the per-pair ratios weft/ucx. Exit 0 when the median overall ratio meets the target, 1 when it does
not, 2 when a side failed. --ucx-test compares with another UCX test of the same size (e.g. weft ucp_get
against UCX tag_lat). PERF_PORTS=LOW-HIGH takes the control ports from that range (else any free port).

Run from the root of a Weft checkout; needs ucx_perftest (apt-get install ucx-utils). As a library,
final_line(text) parses a perftest output (PerftestProcessTest checks Weft's output with it).
"""
import argparse, os, shlex, socket, statistics, subprocess, sys, time

COLS = {"lat": 3, "bw": 5, "mr": 7}  # overall columns, 0-based, of the eight final numbers
_cursor = [None]


def final_line(text):
    """The last line of eight or more numbers (comma or space separated), as floats; None if none."""
    for line in reversed(text.strip().splitlines()):
        fields = line.replace(",", " ").split()
        try:
            vals = [float(f) for f in fields]
        except ValueError:
            continue
        if len(vals) >= 8:
            return vals[:8]
    return None


def port_in_use(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return False
        except OSError:
            return True


def next_port():
    spec = os.environ.get("PERF_PORTS")
    if not spec:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]
    lo, hi = (int(x) for x in spec.split("-"))
    for _ in range(hi - lo + 1):
        p = lo if _cursor[0] is None else _cursor[0]
        _cursor[0] = lo + (p + 1 - lo) % (hi - lo + 1)
        if not port_in_use(p):
            return p
    sys.exit("no free port in PERF_PORTS=" + spec)


def accepts(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def stop(proc):
    """Ends a server's whole process group (the ./weft script and its JVM)."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, 9)
        except ProcessLookupError:
            pass
    proc.wait(timeout=10)


def run_pair(cmd, env_extra, args, timeout):
    """One server + client run; returns (eight numbers, "") or (None, reason)."""
    env = dict(os.environ)
    env.update(env_extra)
    port = next_port()
    # A server that has printed nothing yet is probed with ss rather than a connection, because a probe
    # connection would be taken as the perftest client.
    srv = subprocess.Popen(cmd + args + ["-p", str(port), "-c", "0"], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, start_new_session=True)
    t0 = time.time()
    while not listening(port):
        if srv.poll() is not None or time.time() - t0 > 60:
            out = srv.communicate()[0] if srv.poll() is not None else ""
            stop(srv)
            return None, "server did not listen: " + out[-400:]
        time.sleep(0.05)
    try:
        cli = subprocess.run(cmd + ["127.0.0.1"] + args + ["-p", str(port), "-c", "1", "-f"], env=env,
                             capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        stop(srv)
        return None, "client timed out after %d s" % timeout
    try:
        srv.wait(timeout=15)
    except subprocess.TimeoutExpired:
        stop(srv)
    v = final_line(cli.stdout)
    if v is None:
        return None, "no result line: " + (cli.stdout + cli.stderr)[-400:]
    return v, ""


def listening(port):
    """True when a socket listens on the port (read from the kernel's table, connecting to nothing)."""
    hexport = ":%04X" % port
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for row in f:
                    cols = row.split()
                    if cols[1].endswith(hexport) and cols[3] == "0A":  # 0A: TCP_LISTEN
                        return True
        except OSError:
            continue
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--label", required=True)
    ap.add_argument("--test", required=True)
    ap.add_argument("--ucx-test", default=None)
    ap.add_argument("--size", default="8")
    ap.add_argument("--iters", default="100000")
    ap.add_argument("--warmup", default="20000")
    ap.add_argument("--metric", choices=COLS, default="lat")
    ap.add_argument("--weft-env", default="")
    ap.add_argument("--ucx-env", default="")
    ap.add_argument("--weft-args", default="")
    ap.add_argument("--ucx-args", default="")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--timeout", type=int, default=180)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--max-ratio", type=float)
    g.add_argument("--min-ratio", type=float)
    a = ap.parse_args()
    if not os.path.exists("./weft"):
        sys.exit("run from the root of a Weft checkout (no ./weft here)")
    if subprocess.run(["sh", "-c", "command -v ucx_perftest"], capture_output=True).returncode != 0:
        print("ucx_perftest is not installed: apt-get install ucx-utils")
        sys.exit(2)
    env_of = lambda s: dict(kv.split("=", 1) for kv in s.split())
    counts = ["-s", a.size, "-n", a.iters, "-w", a.warmup]
    weft_args = ["-t", a.test] + counts + shlex.split(a.weft_args)
    ucx_args = ["-t", a.ucx_test or a.test] + counts + shlex.split(a.ucx_args)
    c = COLS[a.metric]
    overall, typical = [], []
    for i in range(a.pairs):
        u, err = run_pair(["ucx_perftest"], env_of(a.ucx_env), ucx_args, a.timeout)
        if u is None:
            print("ucx side failed:", err)
            sys.exit(2)
        w, err = run_pair(["./weft", "perftest"], env_of(a.weft_env), weft_args, a.timeout)
        if w is None:
            print("weft side failed:", err)
            sys.exit(2)
        r = w[c] / u[c] if u[c] else float("inf")
        overall.append(r)
        line = "pair %d: overall ucx %.4g weft %.4g ratio %.3f" % (i + 1, u[c], w[c], r)
        if a.metric == "lat":
            t = w[1] / u[1] if u[1] else float("inf")
            typical.append(t)
            line += " | typical(50%%) ucx %.4g weft %.4g ratio %.3f" % (u[1], w[1], t)
        print(line, flush=True)
    med = statistics.median(overall)
    ok = med <= a.max_ratio if a.max_ratio is not None else med >= a.min_ratio
    target = ("<= %.2f" % a.max_ratio) if a.max_ratio is not None else (">= %.2f" % a.min_ratio)
    vs = " (ucx %s)" % a.ucx_test if a.ucx_test else ""
    s = "%s: weft/ucx%s %s overall ratio median %.3f (min %.3f, max %.3f, %d pairs)" % (
        a.label, vs, a.metric, med, min(overall), max(overall), len(overall))
    if typical:
        s += "; typical median %.3f (min %.3f, max %.3f)" % (statistics.median(typical), min(typical), max(typical))
    print(s + ", target %s: %s" % (target, "met" if ok else "NOT met"), flush=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
