"""A GPU co-tenant for the sensitivity test: busy for DUTY of every PERIOD_MS on the same GPU.

It is started by the image's entrypoint next to the workload, the way a sidecar or monitoring daemon
shipped in an image would be, so the container arm really shares the GPU (time-slicing). It touches the
GPU only once the workload (NOISY_WATCH_PID, default 1: the entrypoint's exec'd command) has opened the
driver, so a workload held before its CUDA init (prestart) is not preceded by co-tenant work that would
overlap the previous process — the slowdown belongs to this container's own steady state.
"""
import os
import time

import torch

duty = float(os.environ.get("NOISY_DUTY", "0.02"))
period = float(os.environ.get("NOISY_PERIOD_MS", "20")) / 1000.0
watch = os.environ.get("NOISY_WATCH_PID", "1")


def workload_on_gpu():
    try:
        for fd in os.listdir("/proc/%s/fd" % watch):
            try:
                if os.readlink("/proc/%s/fd/%s" % (watch, fd)).startswith(("/dev/nvidiactl", "/dev/nvidia-uvm")):
                    return True
            except OSError:
                pass
    except PermissionError:
        time.sleep(8)  # cannot look: assume the workload is on the GPU by then
        return True
    except FileNotFoundError:
        raise SystemExit(0)  # the workload is gone
    return False


while not workload_on_gpu():
    time.sleep(0.05)
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
