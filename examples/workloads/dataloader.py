"""A user-style input-pipeline benchmark for gpu-overhead-action's `commands`: a PyTorch DataLoader whose worker
processes build image batches and hand them to the GPU (route: the protocol helper).

Each batch crosses from a worker to the main process through shared memory (/dev/shm), as in training: Docker's
default /dev/shm is 64 MiB, so a container launched without `--ipc=host` (or `--shm-size`) fails here the way
real training jobs do ("Unexpected bus error encountered in worker ... insufficient shared memory"). One sample
is one batch, from asking the loader for it to the GPU step's end (milliseconds, lower is better); the first
epoch is warm-up (workers start, pages fault in) and is not reported.

    - uses: org/gpu-overhead-action@v1  # or a full commit SHA (README, "Pinning")
      with:
        image: nvcr.io/nvidia/pytorch:25.10-py3@sha256:…
        container-args: --ipc=host
        commands: |
          loader: python3 {workspace}/examples/workloads/dataloader.py --workers 4 --batch 64
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.environ.get("GPU_OVERHEAD_HELPER", os.path.join(os.path.dirname(__file__), "..", "..", "workloads")))
import gpu_overhead  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--size", type=int, default=224, help="image side in pixels (3 x size x size, fp32)")
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--batches", type=int, default=24, help="batches per epoch")
    p.add_argument("--epochs", type=int, default=3, help="measured epochs, after one warm-up epoch")
    a = p.parse_args()
    with gpu_overhead.Benchmark("dataloader", params=vars(a)) as bench:
        import torch
        from torch.utils.data import DataLoader, Dataset

        bench.phase("imports")

        class Images(Dataset):
            # Deterministic per index, generated in the worker: the work a decode/augment step does on the CPU.
            def __len__(self):
                return a.batch * a.batches

            def __getitem__(self, i):
                g = torch.Generator().manual_seed(i)
                return torch.rand(3, a.size, a.size, generator=g), i % 1000

        dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        model = torch.nn.Sequential(
            torch.nn.Conv2d(3, 32, 7, stride=4),
            torch.nn.ReLU(),
            torch.nn.AdaptiveAvgPool2d(4),
            torch.nn.Flatten(),
            torch.nn.Linear(32 * 16, 1000),
        ).to(dev)
        sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
        loader = DataLoader(
            Images(),
            batch_size=a.batch,
            num_workers=a.workers,
            pin_memory=dev.type == "cuda",
            persistent_workers=a.workers > 0,
        )
        bench.phase("device_init")
        for epoch in range(a.epochs + 1):
            it = iter(loader)
            while True:
                t = time.perf_counter()
                try:
                    x, _ = next(it)
                except StopIteration:
                    break
                with torch.inference_mode():
                    model(x.to(dev, non_blocking=True)).sum().item()
                sync()
                if epoch > 0:
                    bench.sample("batch_ms", (time.perf_counter() - t) * 1e3, "ms", "lower")
            if epoch == 0:
                bench.phase("first_kernel")


if __name__ == "__main__":
    main()
