"""Torch and NVML helpers shared by the GPU workloads: which GPU, importing torch, CUDA init, the
software stack facts, OOM detection, synchronisation and the NVML energy counter.

Standard library only at import time (torch is imported on demand): the workloads run unchanged
natively and inside images.
"""

import ctypes
import os

from _protocol import WorkloadError, short


def gpu_index():
    raw = os.environ.get("GPU_OVERHEAD_GPU", "").strip()
    if raw == "":
        return 0
    try:
        idx = int(raw)
    except ValueError:
        raise WorkloadError("bad_args", "GPU_OVERHEAD_GPU must be a GPU index (0, 1, ...), got %r" % raw)
    if idx < 0:
        raise WorkloadError("bad_args", "GPU_OVERHEAD_GPU must be >= 0, got %d" % idx)
    return idx


def import_torch(required):
    """Import torch; None when absent and not required, missing_backend error when required."""
    try:
        import torch  # noqa: F401

        return torch
    except ImportError as e:
        if required:
            raise WorkloadError("missing_backend", "torch is not importable (%s); install PyTorch or use --device cpu" % short(e))
        return None


def torch_cuda_init(torch, index):
    """Create the CUDA context on GPU `index` with a tiny synchronous allocation."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        available = torch.cuda.is_available()
    if not available:
        why = "; ".join(str(w.message).strip() for w in caught) or "torch.cuda.is_available() is False"
        raise WorkloadError(
            "no_gpu",
            "no usable CUDA GPU (torch %s built for CUDA %s): %s"
            % (torch.__version__, torch.version.cuda, why),
        )
    count = torch.cuda.device_count()
    if index >= count:
        raise WorkloadError("no_gpu", "GPU_OVERHEAD_GPU=%d but only %d GPU(s) are visible" % (index, count))
    torch.cuda.init()
    torch.cuda.set_device(index)
    dev = torch.device("cuda", index)
    torch.empty(1, device=dev)
    torch.cuda.synchronize(dev)
    return dev


def torch_env(torch, dev):
    env = {
        "torch": torch.__version__,
        "cuda": getattr(torch.version, "cuda", None),
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "tf32": torch.get_float32_matmul_precision() != "highest",
    }
    try:
        env["num_threads"] = torch.get_num_threads()
    except Exception:
        pass
    if dev is not None and dev.type == "cuda":
        props = torch.cuda.get_device_properties(dev)
        env.update(
            {
                "device_name": props.name,
                "device_index": dev.index,
                "device_uuid": device_uuid(torch, dev),
                "compute_capability": "%d.%d" % (props.major, props.minor),
                "multiprocessors": props.multi_processor_count,
                "device_memory_bytes": props.total_memory,
                "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
                "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
                "cuda_module_loading": os.environ.get("CUDA_MODULE_LOADING"),
            }
        )
        try:
            env["driver_cuda"] = torch._C._cuda_getDriverVersion()
        except Exception:
            pass
    return env


def device_uuid(torch, dev):
    """'GPU-xxxxxxxx-...' as nvidia-smi and NVML spell it, or None."""
    try:
        u = str(torch.cuda.get_device_properties(dev).uuid)
    except Exception:
        return None
    if not u:
        return None
    return u if u.startswith(("GPU-", "MIG-")) else "GPU-" + u


def sync(torch, dev):
    if dev is not None and dev.type == "cuda":
        torch.cuda.synchronize(dev)


# ---- NVML energy counter (ctypes, no pynvml) -----------------------------------------------


class NvmlEnergy:
    """Reads nvmlDeviceGetTotalEnergyConsumption (mJ since driver load); unavailable -> None."""

    def __init__(self, uuid=None, index=None):
        self.lib = None
        self.handle = None
        self.reason = None
        try:
            lib = ctypes.CDLL("libnvidia-ml.so.1")
        except OSError as e:
            self.reason = "libnvidia-ml.so.1 not loadable: %s" % e
            return
        try:
            if lib.nvmlInit_v2() != 0:
                self.reason = "nvmlInit_v2 failed"
                return
            handle = ctypes.c_void_p()
            rc = -1
            if uuid:
                rc = lib.nvmlDeviceGetHandleByUUID(ctypes.c_char_p(uuid.encode()), ctypes.byref(handle))
            # NVML counts every GPU of the host; only trust a bare index when nothing remaps them.
            if rc != 0 and index is not None and not os.environ.get("CUDA_VISIBLE_DEVICES"):
                rc = lib.nvmlDeviceGetHandleByIndex_v2(ctypes.c_uint(index), ctypes.byref(handle))
            if rc != 0:
                self.reason = "no NVML handle for %s (rc %d)" % (uuid or index, rc)
                return
            self.lib = lib
            self.handle = handle
            if self.read_mj() is None:
                self.reason = "energy counter not supported on this GPU"
                self.handle = None
        except AttributeError as e:
            self.reason = "NVML symbol missing: %s" % e

    def read_mj(self):
        if self.handle is None:
            return None
        val = ctypes.c_ulonglong()
        if self.lib.nvmlDeviceGetTotalEnergyConsumption(self.handle, ctypes.byref(val)) != 0:
            return None
        return int(val.value)

    @staticmethod
    def joules(before_mj, after_mj):
        if before_mj is None or after_mj is None or after_mj < before_mj:
            return None
        return (after_mj - before_mj) / 1000.0


# The counter advances in coarse steps (seen on an H200: 62 J over 30 ms, i.e. "2 kW"): below
# this length a region's energy is noise, so it is reported as null with the reason.
MIN_ENERGY_REGION_S = 1.0


def energy_result(meter, before_mj, after_mj, measured_s):
    """(energy_j or None, reason or None) for one measured region."""
    if meter is None:
        return None, "cpu"
    if meter.handle is None:
        return None, meter.reason
    j = NvmlEnergy.joules(before_mj, after_mj)
    if j is None:
        return None, "energy counter read failed"
    if measured_s < MIN_ENERGY_REGION_S:
        return None, "measured region %.3f s < %.1f s: too short for the NVML energy counter" % (measured_s, MIN_ENERGY_REGION_S)
    return j, None
