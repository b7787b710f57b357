#!/usr/bin/env python3
"""Why do some LLM decode processes run ~10% faster than others? (issue 18, "one mode per decode")

One process of this script = one fresh decode process of workloads/llm.py's model (1b preset, b8 p512 o128,
CUDA graph decode, the workload's own classes). Inside the process it separates the suspects by changing one
thing at a time and timing decode again:

  base       the workload's path: weights, session, graph capture, 6 timed requests (TPOT per request)
  gpu_only   127 graph replays between two CUDA events, no host sync per token (GPU time alone)
  recapture  the same weights, a new session + a new graph (graph capture / KV-cache placement)
  realloc    1 GiB held first, then new weights + session + graph (device memory placement)
  pinned     the launching thread pinned to one CPU (CPU affinity), same graph as base
  eager      no graph (launch-bound reference)
and profiles one graph request and a few eager steps with torch.profiler (kernel names, counts, GPU time),
reading SM/memory clocks and temperature from NVML around each block.

Usage: python3 decode-modes.py INDEX OUT_DIR   (writes OUT_DIR/p<INDEX>.json, prints one summary line)
"""

import json
import os
import statistics
import sys
import time

T_START = time.perf_counter()
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.environ.get("WORKLOADS_DIR", os.path.join(HERE, "..", "..", "workloads")))

import torch  # noqa: E402

import _llm_torch as llm  # noqa: E402  (the workload's torch model and session)
from _llm_common import PRESETS  # noqa: E402

B, PL, O = 8, 512, 128
REQUESTS = 6


def current_cpu():
    with open("/proc/self/stat") as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return int(rest[36])  # field 39 "processor", counted after the ")" that ends comm


class Nvml:
    def __init__(self):
        try:
            import pynvml

            pynvml.nvmlInit()
            self.n = pynvml
            self.h = pynvml.nvmlDeviceGetHandleByIndex(0)
        except Exception as e:  # noqa: BLE001
            self.n = None
            self.err = str(e)

    def read(self):
        if self.n is None:
            return None
        n, h = self.n, self.h
        out = {}
        for key, fn in (
            ("sm_mhz", lambda: n.nvmlDeviceGetClockInfo(h, n.NVML_CLOCK_SM)),
            ("mem_mhz", lambda: n.nvmlDeviceGetClockInfo(h, n.NVML_CLOCK_MEM)),
            ("temp_c", lambda: n.nvmlDeviceGetTemperature(h, n.NVML_TEMPERATURE_GPU)),
            ("power_w", lambda: n.nvmlDeviceGetPowerUsage(h) / 1000.0),
            ("throttle", lambda: int(n.nvmlDeviceGetCurrentClocksEventReasons(h))),
        ):
            try:
                out[key] = fn()
            except Exception:  # noqa: BLE001
                out[key] = None
        return out


def timed_requests(model, sess, prompt_dev, gen, use_graph, n):
    tpots = []
    for _ in range(n):
        p_host = torch.randint(0, model.cfg["vocab"], (B, PL), generator=gen).pin_memory()
        torch.cuda.synchronize()
        prompt_dev.copy_(p_host, non_blocking=True)
        model.prefill(prompt_dev, sess)
        torch.cuda.synchronize()
        t1 = time.perf_counter()
        for _ in range(O - 1):
            sess.step(use_graph)
            torch.cuda.synchronize()
        tpots.append((time.perf_counter() - t1) * 1000.0 / (O - 1))
    return tpots


def gpu_only(model, sess, prompt_dev):
    model.prefill(prompt_dev, sess)
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(O - 1):
        sess.graph.replay()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) / (O - 1)


def new_session(model):
    sess = llm.TorchSession(model, B, PL + O)
    if os.environ.get("DECODE_PIN") == "1":  # the workload's pinned decode attention (off for call 1's profile)
        model.pin_decode_attention(sess)
    sess.capture()
    return sess, torch.zeros((B, PL), dtype=torch.long, device=model.dev)


def kernel_table(prof, top=40):
    rows = {}
    for ev in prof.events():
        if ev.device_type != torch.autograd.DeviceType.CUDA:
            continue
        r = rows.setdefault(ev.name, [0, 0.0])
        r[0] += 1
        r[1] += ev.time_range.elapsed_us()
    out = sorted(({"kernel": k, "count": c, "us": round(t, 1)} for k, (c, t) in rows.items()), key=lambda r: -r["us"])
    return out[:top]


def main():
    idx, out_dir = sys.argv[1], sys.argv[2]
    t_import = time.perf_counter() - T_START
    nv = Nvml()
    dev = torch.device("cuda", 0)
    torch.empty(1, device=dev)
    torch.cuda.synchronize()
    torch.set_grad_enabled(False)
    cfg = dict(PRESETS["1b"])
    res = {
        "index": int(idx),
        "pid": os.getpid(),
        "import_s": round(t_import, 3),
        "affinity": sorted(os.sched_getaffinity(0)),
        "cpu_at_start": current_cpu(),
        "device": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "cublas_workspace": os.environ.get("CUBLAS_WORKSPACE_CONFIG"),
        "sdpa": {
            "flash": torch.backends.cuda.flash_sdp_enabled(),
            "mem_efficient": torch.backends.cuda.mem_efficient_sdp_enabled(),
            "cudnn": torch.backends.cuda.cudnn_sdp_enabled(),
            "math": torch.backends.cuda.math_sdp_enabled(),
        },
        "nvml": {"start": nv.read()},
    }
    model = llm.TorchLlama(torch, cfg, torch.bfloat16, dev, 0, PL + O)
    res["ptr_emb"] = model.emb.data_ptr()
    res["ptr_w13_0"] = model.layers[0]["w13"].data_ptr()
    sess, prompt_dev = new_session(model)
    res["ptr_k0"] = sess.k[0].data_ptr()
    gen = torch.Generator()
    gen.manual_seed(1)
    timed_requests(model, sess, prompt_dev, gen, True, 2)  # warm-up, as the workload does
    res["nvml"]["before_base"] = nv.read()
    res["base"] = timed_requests(model, sess, prompt_dev, gen, True, REQUESTS)
    res["nvml"]["after_base"] = nv.read()
    res["cpu_after_base"] = current_cpu()
    res["gpu_only_ms"] = [gpu_only(model, sess, prompt_dev) for _ in range(3)]

    # Profile one graph request and a few eager steps.
    from torch.profiler import ProfilerActivity, profile

    try:
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            timed_requests(model, sess, prompt_dev, gen, True, 1)
        res["profile_graph"] = kernel_table(prof)
        model.prefill(prompt_dev, sess)
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(8):
                sess.step(False)
            torch.cuda.synchronize()
        res["profile_eager8"] = kernel_table(prof)
    except Exception as e:  # noqa: BLE001 - the timings matter more than the profile
        res["profile_error"] = "%s: %s" % (type(e).__name__, e)
    res["eager"] = timed_requests(model, sess, prompt_dev, gen, False, 1)

    # Pinned launching thread, same graph.
    cpus = sorted(os.sched_getaffinity(0))
    pin = cpus[len(cpus) // 2]
    os.sched_setaffinity(0, {pin})
    res["pinned_cpu"] = pin
    res["pinned"] = timed_requests(model, sess, prompt_dev, gen, True, 3)
    os.sched_setaffinity(0, set(cpus))

    # Same weights, new session and graph.
    sess.graph = None
    del sess
    sess, prompt_dev = new_session(model)
    res["recapture"] = timed_requests(model, sess, prompt_dev, gen, True, 3)
    res["gpu_only_recapture_ms"] = gpu_only(model, sess, prompt_dev)

    # New weights at other device addresses.
    sess.graph = None
    del sess, model
    hold = torch.empty(1 << 30, dtype=torch.uint8, device=dev)
    model = llm.TorchLlama(torch, cfg, torch.bfloat16, dev, 0, PL + O)
    res["ptr_emb_realloc"] = model.emb.data_ptr()
    sess, prompt_dev = new_session(model)
    timed_requests(model, sess, prompt_dev, gen, True, 1)
    res["realloc"] = timed_requests(model, sess, prompt_dev, gen, True, 3)
    res["gpu_only_realloc_ms"] = gpu_only(model, sess, prompt_dev)
    res["nvml"]["end"] = nv.read()
    del hold
    res["wall_s"] = round(time.perf_counter() - T_START, 2)

    with open(os.path.join(out_dir, "p%s.json" % idx), "w") as f:
        json.dump(res, f, indent=1)
    med = statistics.median
    print(
        "p%-3s cpu %3d  base %.3f  gpu %.3f  pinned %.3f  recap %.3f (gpu %.3f)  realloc %.3f (gpu %.3f)  eager %.2f  sm %s MHz  wall %.0fs"
        % (
            idx,
            res["cpu_at_start"],
            med(res["base"]),
            med(res["gpu_only_ms"]),
            med(res["pinned"]),
            med(res["recapture"]),
            res["gpu_only_recapture_ms"],
            med(res["realloc"]),
            res["gpu_only_realloc_ms"],
            res["eager"][0],
            (res["nvml"]["after_base"] or {}).get("sm_mhz"),
            res["wall_s"],
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
