#!/usr/bin/env python3
"""Name the decode state (issue 38). The llm workload's own model and CUDA-graph decode (workloads/_llm_torch.py,
preset 1b, batch 8, prompt 512, 128 tokens) runs in fresh processes under one condition at a time; every token is
timed on the host (replay + synchronize, as the workload's TPOT) and on the GPU (CUDA events around the replay).
If the GPU time moves with the level, the state is on the GPU; if only the host time does, it is on the CPU side.

Conditions (each: --procs fresh processes on GPU --gpu, one after another):
  idle          nothing else
  poll2ms       another process wakes every 2 ms (the runner's channel polling)
  cpuspin       another process spins on a CPU core
  pmqos0        /dev/cpu_dma_latency held at 0 (no deep CPU idle state) while the processes run
  ctxidle       a second CUDA context, idle, on the same GPU
  cotenant      a second process runs two 2048^2 bf16 matmuls every 20 ms on the same GPU
  cotenant-far  the same co-tenant on another GPU (--other-gpu)
  tiny1ms       a second process runs one tiny kernel every 1 ms on the same GPU
  turns         two processes, one request each in turn (stdin), as the runner's turns do
  duet          two processes at once, on --gpu and --other-gpu
  spinsync      the worker waits for the GPU by spinning (cudaDeviceScheduleSpin)
  blocksync     the worker waits by blocking (cudaDeviceScheduleBlockingSync)
  selfpoll      the worker itself keeps a thread waking every 0.5 ms (in-workload control candidate)
  gpukeep       the worker keeps a tiny kernel queued on its own side stream every 1 ms (in-workload candidate)

Usage: decode-state.py --out DIR [--gpu 0] [--other-gpu 1] [--procs 3] [--requests 6] [--conditions a,b,...]
Prints a markdown table: per condition, each process's median host and GPU ms per token.
"""
import argparse
import ctypes
import glob
import json
import os
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = os.path.join(HERE, "..", "..", "workloads")
ALL = ("idle poll2ms cpuspin pmqos0 ctxidle cotenant cotenant-far tiny1ms turns duet spinsync blocksync selfpoll "
       "gpukeep idle").split()


def cpu_now():
    with open("/proc/self/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[36])


def set_sync(flag):
    """cudaSetDeviceFlags before the context exists: 1 spin, 2 yield, 4 blocking sync."""
    import torch

    libs = sorted(glob.glob(os.path.join(os.path.dirname(torch.__file__), "..", "nvidia", "*", "lib", "libcudart.so*")))
    libs += sorted(glob.glob(os.path.join(os.path.dirname(torch.__file__), "lib", "libcudart*.so*")))
    libs += ["libcudart.so", "libcudart.so.13", "libcudart.so.12"]
    for lib in libs:
        try:
            rt = ctypes.CDLL(lib)
        except OSError:
            continue
        rc = rt.cudaSetDeviceFlags(ctypes.c_uint(flag))
        return "%s rc=%d" % (os.path.basename(lib), rc)
    return "no libcudart"


def worker(a):
    sys.path.insert(0, WORKLOADS)
    note = ""
    if a.sync:
        note = set_sync({"spin": 1, "yield": 2, "block": 4}[a.sync])
    import torch
    from _llm_common import PRESETS
    from _llm_torch import TorchLlama, TorchSession

    torch.set_grad_enabled(False)
    dev = torch.device("cuda", 0)
    torch.cuda.set_device(dev)
    torch.zeros(1, device=dev)
    cfg = dict(PRESETS["1b"])
    B, Pl, O = 8, 512, 128
    model = TorchLlama(torch, cfg, torch.bfloat16, dev, 1, Pl + O)
    sess = TorchSession(model, B, Pl + O)
    prompt_dev = torch.zeros((B, Pl), dtype=torch.long, device=dev)
    model.pin_decode_attention(sess)
    sess.capture()
    sess.capture_prefill(prompt_dev)
    gen = torch.Generator().manual_seed(2)
    stop = threading.Event()
    if a.selfpoll:
        threading.Thread(target=lambda: [time.sleep(0.0005) for _ in iter(stop.is_set, True)], daemon=True).start()
    if a.gpukeep:
        side = torch.cuda.Stream()
        tiny = torch.zeros(16, device=dev)

        def keep():
            while not stop.is_set():
                with torch.cuda.stream(side):
                    tiny.add_(1)
                time.sleep(0.001)

        threading.Thread(target=keep, daemon=True).start()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(O)]
    host, gpu, cpus, ttft = [], [], set(), []
    for r in range(a.warmup + a.requests):
        if a.turn:
            sys.stdout.write("wait\n")
            sys.stdout.flush()
            if sys.stdin.readline().strip() != "go":
                break
        p = torch.randint(0, cfg["vocab"], (B, Pl), generator=gen).pin_memory()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        prompt_dev.copy_(p, non_blocking=True)
        sess.prefill(prompt_dev, True)
        torch.cuda.synchronize()
        stamps = [time.perf_counter()]
        for i in range(O - 1):
            ev[i][0].record()
            sess.step(True)
            ev[i][1].record()
            torch.cuda.synchronize()
            stamps.append(time.perf_counter())
        cpus.add(cpu_now())
        if r >= a.warmup:
            host += [(stamps[i + 1] - stamps[i]) * 1e3 for i in range(O - 1)]
            gpu += [ev[i][0].elapsed_time(ev[i][1]) for i in range(O - 1)]
            ttft.append((stamps[0] - t0) * 1e3)
    stop.set()
    res = {"host_ms": statistics.median(host), "gpu_ms": statistics.median(gpu), "ttft_ms": statistics.median(ttft),
           "host_mean": statistics.fmean(host), "cpus": sorted(cpus), "note": note}
    sys.stdout.write("RESULT " + json.dumps(res) + "\n")
    sys.stdout.flush()


def spawn_worker(a, gpu, extra=(), stdin=None):
    env = dict(os.environ, CUDA_VISIBLE_DEVICES=str(gpu), PYTHONUNBUFFERED="1")
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--requests", str(a.requests)] + list(extra)
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stdin=stdin, text=True)


def result_of(p):
    out, _ = p.communicate(timeout=300)
    for line in out.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    return {"error": "rc %s" % p.returncode}


SIDE = {
    "poll2ms": "import os,time\nwhile True:\n  time.sleep(0.002); os.stat('/proc/self')",
    "cpuspin": "while True: pass",
    "ctxidle": "import torch,time\ntorch.zeros(1,device='cuda');time.sleep(3600)",
    "cotenant": "import torch,time\na=torch.randn(2048,2048,device='cuda',dtype=torch.bfloat16)\n"
    "while True:\n  a@a; a@a; torch.cuda.synchronize(); time.sleep(0.02)",
    "tiny1ms": "import torch,time\na=torch.zeros(16,device='cuda')\nwhile True:\n  a.add_(1); torch.cuda.synchronize(); time.sleep(0.001)",
}


def side_process(name, gpu):
    code = SIDE["cotenant" if name == "cotenant-far" else name]
    env = dict(os.environ, CUDA_VISIBLE_DEVICES=str(gpu))
    return subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def run_condition(a, cond):
    rows = []
    side, qos = None, None
    if cond in SIDE or cond == "cotenant-far":
        side = side_process(cond, a.other_gpu if cond == "cotenant-far" else a.gpu)
        time.sleep(8 if "cotenant" in cond or cond in ("ctxidle", "tiny1ms") else 1)
    if cond == "pmqos0":
        try:
            qos = os.open("/dev/cpu_dma_latency", os.O_WRONLY)
            os.write(qos, (0).to_bytes(4, "little"))
        except OSError as e:
            rows.append({"error": "pmqos: %s" % e})
    try:
        for _ in range(a.procs):
            if cond == "turns":
                ps = [spawn_worker(a, a.gpu, ["--turn"], subprocess.PIPE) for _ in range(2)]

                def until_wait(p):
                    # True at the process's next "wait" (its request done), False at its end
                    for line in iter(p.stdout.readline, ""):
                        if line.strip() == "wait":
                            return True
                        if line.startswith("RESULT "):
                            rows.append(json.loads(line[7:]))
                    return False

                live = [p for p in ps if until_wait(p)]
                while live:
                    for p in list(live):
                        p.stdin.write("go\n")
                        p.stdin.flush()
                        if not until_wait(p):
                            live.remove(p)
                for p in ps:
                    p.wait()
            elif cond == "duet":
                ps = [spawn_worker(a, g) for g in (a.gpu, a.other_gpu)]
                rows += [dict(result_of(p), gpu=g) for p, g in zip(ps, (a.gpu, a.other_gpu))]
            else:
                extra = {"spinsync": ["--sync", "spin"], "blocksync": ["--sync", "block"], "selfpoll": ["--selfpoll"],
                         "gpukeep": ["--gpukeep"]}.get(cond, [])
                rows.append(result_of(spawn_worker(a, a.gpu, extra)))
    finally:
        if side:
            side.kill()
            side.wait()
        if qos is not None:
            os.close(qos)
    return rows


def smi(gpu):
    q = "clocks.sm,clocks.mem,power.draw,pstate,temperature.gpu,clocks_event_reasons.active"
    try:
        return subprocess.run(["nvidia-smi", "-i", str(gpu), "--query-gpu=" + q, "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception as e:  # noqa: BLE001
        return str(e)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--turn", action="store_true")
    ap.add_argument("--sync", choices=("spin", "yield", "block"))
    ap.add_argument("--selfpoll", action="store_true")
    ap.add_argument("--gpukeep", action="store_true")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--requests", type=int, default=6)
    ap.add_argument("--procs", type=int, default=3)
    ap.add_argument("--gpu", type=int, default=0)
    ap.add_argument("--other-gpu", type=int, default=1)
    ap.add_argument("--conditions", default=",".join(ALL))
    ap.add_argument("--out")
    a = ap.parse_args()
    if a.worker:
        return worker(a)
    os.makedirs(a.out, exist_ok=True)
    lines = ["| condition | process | host ms/token (median) | GPU ms/token (events) | host - GPU | TTFT ms | CPUs | nvidia-smi after |",
             "| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
    with open(os.path.join(a.out, "decode-state.jsonl"), "a") as log:
        for cond in a.conditions.split(","):
            t = time.time()
            rows = run_condition(a, cond)
            after = smi(a.gpu)
            for i, r in enumerate(rows):
                log.write(json.dumps(dict(r, condition=cond, smi=after)) + "\n")
                if "error" in r:
                    lines.append("| %s | %d | error: %s | | | | | |" % (cond, i, r["error"]))
                    continue
                lines.append("| %s | %d%s | %.3f | %.3f | %.3f | %.1f | %s | %s |" % (
                    cond, i, (" gpu%s" % r["gpu"]) if "gpu" in r else "", r["host_ms"], r["gpu_ms"],
                    r["host_ms"] - r["gpu_ms"], r["ttft_ms"], ",".join(map(str, r["cpus"])), after))
            print("\n".join(lines[-len(rows):]), "(%.0f s)" % (time.time() - t), flush=True)
    with open(os.path.join(a.out, "decode-state.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
