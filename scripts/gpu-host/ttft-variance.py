"""GPU host, one fresh process: where the llm workload's process-to-process TTFT spread comes from (issue 18).

Builds the workload's own model (workloads/_llm_torch.TorchLlama, preset 1b, b8 p512) and times the prefill
four ways, 24 requests each, printing one JSON line:
- host: as the workload times TTFT (sync, copy the prompt, eager prefill, sync);
- gpu: the same eager prefill between two CUDA events, enqueued while the GPU sleeps, so the CPU's launch
  time is hidden (pure GPU time) — and how long the CPU took to enqueue it;
- graph_host / graph_gpu: the prefill captured once in a CUDA graph, replayed (host-timed and event-timed);
- gemm: one bf16 GEMM of the prefill's MLP shape (4096 × 2048 × 5632), event-timed, for a GPU-only baseline.
Plus the CPU the process ran on and the SM clock, temperature and power around the measurement.
"""

import json
import os
import statistics as st
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "workloads"))

t_start = time.perf_counter()
import torch  # noqa: E402

from _llm_common import PRESETS  # noqa: E402
from _llm_torch import TorchLlama, TorchSession  # noqa: E402

N = 24
B, PL, O = 8, 512, 128


def cpu_now():
    with open("/proc/self/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[36])


def gpu_state():
    """SM/memory clock, temperature, power and active clock-event reasons, from nvidia-smi."""
    import subprocess

    q = "clocks.sm,clocks.mem,temperature.gpu,power.draw,clocks_event_reasons.active"
    try:
        r = subprocess.run(["nvidia-smi", "-i", "0", "--query-gpu=" + q, "--format=csv,noheader,nounits"],
                           capture_output=True, text=True, timeout=20)
        return dict(zip(q.split(","), [v.strip() for v in r.stdout.strip().split(",")]))
    except Exception as e:
        return {"error": str(e)}


def summary(xs):
    return {"median": st.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


def main():
    dev = torch.device("cuda:0")
    torch.cuda.init()
    torch.set_grad_enabled(False)
    cfg = dict(PRESETS["1b"])
    model = TorchLlama(torch, cfg, torch.bfloat16, dev, 1, PL + O)
    sess = TorchSession(model, B, PL + O)
    model.pin_decode_attention(sess)
    prompt_dev = torch.zeros((B, PL), dtype=torch.long, device=dev)
    gen = torch.Generator()
    gen.manual_seed(2)

    def prompt():
        return torch.randint(0, cfg["vocab"], (B, PL), generator=gen).pin_memory()

    def host_once(p):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        prompt_dev.copy_(p, non_blocking=True)
        model.prefill(prompt_dev, sess)
        torch.cuda.synchronize()
        return (time.perf_counter() - t0) * 1e3

    for _ in range(3):
        host_once(prompt())
    s0 = gpu_state()
    cpu0 = cpu_now()

    host = [host_once(prompt()) for _ in range(N)]

    gpu, enqueue = [], []
    for _ in range(N):
        p = prompt()
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(100_000_000)  # ~50 ms of GPU time: the CPU enqueues the whole prefill meanwhile
        t0 = time.perf_counter()
        a.record()
        prompt_dev.copy_(p, non_blocking=True)
        model.prefill(prompt_dev, sess)
        b.record()
        enqueue.append((time.perf_counter() - t0) * 1e3)
        torch.cuda.synchronize()
        gpu.append(a.elapsed_time(b))

    # prefill in a CUDA graph (warm-up on a side stream first, as PyTorch documents)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):
            model.prefill(prompt_dev, sess)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        model.prefill(prompt_dev, sess)
    graph_host, graph_gpu = [], []
    for _ in range(N):
        p = prompt()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        prompt_dev.copy_(p, non_blocking=True)
        g.replay()
        torch.cuda.synchronize()
        graph_host.append((time.perf_counter() - t0) * 1e3)
    for _ in range(N):
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        torch.cuda.synchronize()
        graph_gpu.append(a.elapsed_time(b))

    x = torch.randn(B * PL, cfg["dim"], device=dev, dtype=torch.bfloat16)
    w = torch.randn(cfg["ffn"], cfg["dim"], device=dev, dtype=torch.bfloat16)
    gemm = []
    for _ in range(5):
        torch.nn.functional.linear(x, w)
    for _ in range(N):
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(10):
            torch.nn.functional.linear(x, w)
        b.record()
        torch.cuda.synchronize()
        gemm.append(a.elapsed_time(b) / 10)

    s1 = gpu_state()
    out = {
        "pid": os.getpid(),
        "cpu_start": cpu0,
        "cpu_end": cpu_now(),
        "affinity": len(os.sched_getaffinity(0)),
        "torch": torch.__version__,
        "gpu_before": s0,
        "gpu_after": s1,
        "host_ms": summary(host),
        "gpu_ms": summary(gpu),
        "enqueue_ms": summary(enqueue),
        "graph_host_ms": summary(graph_host),
        "graph_gpu_ms": summary(graph_gpu),
        "gemm_ms": summary(gemm),
        "process_s": time.perf_counter() - t_start,
        "raw": {"host": host, "gpu": gpu, "graph_host": graph_host},
    }
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
