"""A GPU co-tenant for the sensitivity test: busy for DUTY of every PERIOD_MS on the same GPU.

It is started by the image's entrypoint next to the workload, the way a sidecar or monitoring daemon
shipped in an image would be, so the container arm really shares the GPU (time-slicing).
"""
import os
import time

import torch

duty = float(os.environ.get("NOISY_DUTY", "0.02"))
period = float(os.environ.get("NOISY_PERIOD_MS", "20")) / 1000.0
a = torch.randn(2048, 2048, device="cuda")
b = torch.randn(2048, 2048, device="cuda")
torch.cuda.synchronize()
# Calibrate one small matmul's time, then fire as many per period as the duty asks for.
t0 = time.perf_counter()
for _ in range(20):
    a @ b
torch.cuda.synchronize()
per = (time.perf_counter() - t0) / 20
n = max(1, round(duty * period / per))
while True:
    start = time.perf_counter()
    for _ in range(n):
        a @ b
    torch.cuda.synchronize()
    left = period - (time.perf_counter() - start)
    if left > 0:
        time.sleep(left)
