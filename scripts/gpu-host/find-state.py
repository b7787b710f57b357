#!/usr/bin/env python3
"""Find the state (issue 28): what changes on a shared multi-GPU host when the LLM's per-token time flips
between two levels. A decode-like loop (batch 1, fp16, 22 layers of a 1.1B-style MLP and attention
projections: replayed as one CUDA graph per token and synchronized, as the llm workload decodes; --mode eager launches every
kernel) runs on one GPU and records, for every token, the host
time (enqueue + synchronize), the enqueue time alone and the GPU time (CUDA events). Beside it, every 200 ms:
the GPU's SM and memory clocks, power, P-state, PCIe link, clock-event reasons (nvidia-smi -lms), and the CPU
the loop runs on: its frequency, its idle-state residency (cpuidle) and the load average. At the end, 1-second
windows are split into two levels by their median host time (the widest gap between sorted window medians) and
each level's means are printed as a markdown table: whichever columns move with the level are the state.

Usage: find-state.py --gpu 2 --seconds 170 --out DIR   (stdlib + torch; needs nvidia-smi on PATH)
"""
import argparse
import csv
import os
import statistics
import subprocess
import threading
import time


def cpu_now():
    with open("/proc/self/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[36])


def read(path, default=""):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def cpu_mhz(cpu):
    khz = read("/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq" % cpu)
    if khz:
        return int(khz) / 1000.0
    # No cpufreq (a VM): /proc/cpuinfo's "cpu MHz" of that processor.
    block = [b for b in read("/proc/cpuinfo").split("\n\n") if b.startswith("processor\t: %d\n" % cpu)]
    for line in block[0].splitlines() if block else []:
        if line.startswith("cpu MHz"):
            return float(line.split(":")[1])
    return float("nan")


def idle_times(cpu):
    base = "/sys/devices/system/cpu/cpu%d/cpuidle" % cpu
    out = {}
    try:
        states = sorted(os.listdir(base))
    except OSError:
        return out
    for s in states:
        out[read(os.path.join(base, s, "name"), s)] = int(read(os.path.join(base, s, "time"), "0") or 0)
    return out


def host_sampler(stop, rows):
    last = None
    while not stop.is_set():
        cpu = cpu_now()
        idle = idle_times(cpu)
        t = time.time()
        row = {"t": t, "cpu": cpu, "cpu_mhz": cpu_mhz(cpu), "load1": float(read("/proc/loadavg", "nan").split()[0])}
        if last and last[0] == cpu:
            dt_us = (t - last[1]) * 1e6
            for name, us in idle.items():
                row["idle_" + name] = round((us - last[2].get(name, us)) / dt_us, 4) if dt_us > 0 else 0
        rows.append(row)
        last = (cpu, t, idle)
        stop.wait(0.2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--out", required=True)
    ap.add_argument("--mode", choices=("graph", "eager"), default="graph")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    smi_path = os.path.join(a.out, "smi.csv")
    fields = (
        "timestamp,clocks.sm,clocks.mem,power.draw,pstate,pcie.link.gen.gpucurrent,pcie.link.width.current,"
        "utilization.gpu,temperature.gpu,clocks_event_reasons.active"
    )
    smi = subprocess.Popen(
        ["nvidia-smi", "-i", str(a.gpu), "--query-gpu=" + fields, "--format=csv,nounits", "-lms", "200"],
        stdout=open(smi_path, "w"),
        stderr=subprocess.STDOUT,
    )
    import torch

    dev = torch.device("cuda", a.gpu)
    torch.cuda.set_device(dev)
    g = torch.Generator(device=dev).manual_seed(1)
    d, f, layers = 2048, 5632, 22
    W = [
        [torch.randn(d, n, device=dev, dtype=torch.float16, generator=g) * 0.02 for n in (3 * d, d, f, f)]
        + [torch.randn(f, d, device=dev, dtype=torch.float16, generator=g) * 0.02]
        for _ in range(layers)
    ]
    x0 = torch.randn(1, d, device=dev, dtype=torch.float16, generator=g)

    def token(x):
        for qkv, o, up, gate, down in W:
            h = x @ qkv
            x = x + h[:, :d] @ o
            x = x + (torch.nn.functional.silu(x @ gate) * (x @ up)) @ down
            x = torch.nn.functional.layer_norm(x, (d,))
        return x

    for _ in range(50):
        token(x0)
    torch.cuda.synchronize()
    # As the llm workload decodes: one CUDA graph replay per token, then torch.cuda.synchronize (TU.sync).
    step = lambda: token(x0)  # noqa: E731
    mode = "eager"
    if a.mode == "graph":
        try:
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    token(x0)
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                token(x0)
            torch.cuda.synchronize()
            step, mode = graph.replay, "graph"
        except Exception as exc:  # a failed capture falls back to eager, and says so
            print("graph capture failed, eager: %r" % (exc,), flush=True)
    print("mode %s" % mode, flush=True)
    stop = threading.Event()
    host_rows = []
    th = threading.Thread(target=host_sampler, args=(stop, host_rows), daemon=True)
    th.start()
    tokens = []
    end = time.time() + a.seconds
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    while time.time() < end:
        t0 = time.perf_counter()
        e0.record()
        step()
        e1.record()
        t1 = time.perf_counter()
        torch.cuda.synchronize(dev)
        t2 = time.perf_counter()
        tokens.append((time.time(), (t2 - t0) * 1e3, (t1 - t0) * 1e3, e0.elapsed_time(e1), cpu_now()))
    stop.set()
    th.join()
    smi.terminate()
    smi.wait()
    with open(os.path.join(a.out, "tokens.csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["t", "host_ms", "enqueue_ms", "gpu_ms", "cpu"])
        w.writerows(tokens)
    keys = sorted({k for r in host_rows for k in r})
    with open(os.path.join(a.out, "host.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows(host_rows)
    try:
        summarize(a.out, tokens, host_rows, smi_path)
    except Exception as exc:  # the raw CSVs are written: the table can be made again from them
        print("summary failed: %r" % (exc,), flush=True)


def summarize(out, tokens, host_rows, smi_path):
    smi = []
    with open(smi_path) as fh:
        r = csv.reader(fh)
        head = [h.strip() for h in next(r, [])]
        for row in r:
            if len(row) != len(head):
                continue
            rec = dict(zip(head, [c.strip() for c in row]))
            try:
                rec["_t"] = time.mktime(time.strptime(rec["timestamp"].split(".")[0], "%Y/%m/%d %H:%M:%S"))
            except (KeyError, ValueError):
                continue
            smi.append(rec)
    t0 = tokens[0][0]
    windows = {}
    for t, host, enq, gpu, cpu in tokens:
        windows.setdefault(int(t - t0), []).append((host, enq, gpu, cpu))
    meds = {w: statistics.median(v[0] for v in vals) for w, vals in windows.items() if len(vals) >= 20}
    ordered = sorted(meds.values())
    gaps = [(ordered[i + 1] - ordered[i], i) for i in range(len(ordered) - 1)]
    _, cut = max(gaps) if gaps else (0, 0)
    threshold = (ordered[cut] + ordered[cut + 1]) / 2 if gaps else float("inf")
    level = {w: ("slow" if m > threshold else "fast") for w, m in meds.items()}

    def num(v):
        try:
            return float(v)
        except (TypeError, ValueError):
            return None

    def col(x, prefix):
        # nvidia-smi's header names vary by driver (clocks.sm → "clocks.current.sm [MHz]"): match by prefix.
        for k, v in x.items():
            if k.startswith(prefix):
                return v
        return None

    def mean(xs):
        xs = [x for x in xs if x is not None and x == x]
        return statistics.fmean(xs) if xs else float("nan")

    lines = [
        "| level | windows (1 s) | host ms/token | enqueue ms | GPU ms (events) | SM MHz | mem MHz | power W | "
        "P-state | PCIe gen x width | CPU MHz | load1 | deepest idle residency | clock-event reasons |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | --- | --- |",
    ]
    for lv in ("fast", "slow"):
        ws = sorted(w for w, l in level.items() if l == lv)
        if not ws:
            continue
        toks = [v for w in ws for v in windows[w]]
        in_lv = lambda t: level.get(int(t - t0)) == lv  # noqa: E731
        s = [x for x in smi if in_lv(x["_t"])]
        h = [x for x in host_rows if in_lv(x["t"])]
        idle_keys = sorted({k for x in h for k in x if k.startswith("idle_")})
        deepest = ", ".join("%s %.0f%%" % (k[5:], 100 * mean(x.get(k) for x in h)) for k in idle_keys[-2:])
        reasons = sorted({col(x, "clocks_event_reasons") or "" for x in s})
        lines.append(
            "| %s | %d | %.3f | %.3f | %.3f | %.0f | %.0f | %.0f | %s | %s | %.0f | %.2f | %s | %s |"
            % (
                lv,
                len(ws),
                mean(v[0] for v in toks),
                mean(v[1] for v in toks),
                mean(v[2] for v in toks),
                mean(num(col(x, "clocks.current.sm") or col(x, "clocks.sm")) for x in s),
                mean(num(col(x, "clocks.current.memory") or col(x, "clocks.mem")) for x in s),
                mean(num(col(x, "power.draw")) for x in s),
                "/".join(sorted({col(x, "pstate") or "" for x in s})),
                "/".join(sorted({"%s x%s" % (col(x, "pcie.link.gen"), col(x, "pcie.link.width")) for x in s})),
                mean(x.get("cpu_mhz") for x in h),
                mean(x.get("load1") for x in h),
                deepest or "n/a",
                " ".join(reasons)[:60],
            )
        )
    timeline = " ".join("%s" % ("S" if level[w] == "slow" else ".") for w in sorted(level))
    text = "\n".join(lines) + "\n\nthreshold %.3f ms; per-second levels (. fast, S slow):\n%s\n" % (threshold, timeline)
    with open(os.path.join(out, "state.md"), "w") as fh:
        fh.write(text)
    print(text)


if __name__ == "__main__":
    main()
