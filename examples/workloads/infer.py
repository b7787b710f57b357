"""A user-style inference benchmark for gpu-overhead-action's `commands` (route: the protocol helper).

A small transformer-like forward loop (embedding, 4 blocks of attention + MLP, logits) in PyTorch on the GPU
when there is one, else PyTorch or NumPy on the CPU; each forward pass is one sample (milliseconds, lower is
better), and throughput in tokens/s is reported beside it.

    - uses: org/gpu-overhead-action@v1  # or a full commit SHA (README, "Pinning")
      with:
        image: nvcr.io/nvidia/pytorch:25.10-py3@sha256:…
        commands: |
          infer: python3 examples/workloads/infer.py --batch 8 --seq 256
"""

import argparse
import os
import sys

sys.path.insert(0, os.environ.get("GPU_OVERHEAD_HELPER", os.path.join(os.path.dirname(__file__), "..", "..", "workloads")))
import gpu_overhead  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--seq", type=int, default=64)
    p.add_argument("--dim", type=int, default=256)
    p.add_argument("--iters", type=int, default=10)
    a = p.parse_args()
    with gpu_overhead.Benchmark("infer", params=vars(a)) as bench:
        try:
            import torch
        except ImportError:
            torch = None
        bench.phase("imports")
        if torch is not None:
            dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
            g = torch.Generator(device="cpu").manual_seed(0)
            w = [torch.randn(a.dim, a.dim, generator=g).to(dev) / a.dim**0.5 for _ in range(12)]
            x0 = torch.randn(a.batch, a.seq, a.dim, generator=g).to(dev)
            sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)

            def forward():
                with torch.inference_mode():
                    x = x0
                    for b in range(4):
                        q, k, v = x @ w[3 * b], x @ w[3 * b + 1], x @ w[3 * b + 2]
                        att = torch.softmax(q @ k.transpose(1, 2) / a.dim**0.5, dim=-1)
                        x = x + torch.relu(att @ v)
                    sync()
                    return x
        else:
            import numpy as np

            rng = np.random.default_rng(0)
            w = [rng.standard_normal((a.dim, a.dim)).astype(np.float32) / a.dim**0.5 for _ in range(12)]
            x0 = rng.standard_normal((a.batch, a.seq, a.dim)).astype(np.float32)

            def forward():
                x = x0
                for b in range(4):
                    q, k, v = x @ w[3 * b], x @ w[3 * b + 1], x @ w[3 * b + 2]
                    s = q @ k.transpose(0, 2, 1) / a.dim**0.5
                    e = np.exp(s - s.max(axis=-1, keepdims=True))
                    x = x + np.maximum((e / e.sum(axis=-1, keepdims=True)) @ v, 0)
                return x

        bench.phase("device_init")
        forward()  # warm-up: first kernels, allocator
        bench.phase("first_kernel")
        import time

        for _ in range(a.iters):
            t = time.perf_counter()
            with bench.measure("forward_ms"):
                forward()
            bench.sample("tokens_per_s", a.batch * a.seq / (time.perf_counter() - t), "tok/s", better="higher", derived_from="forward_ms")


if __name__ == "__main__":
    main()
