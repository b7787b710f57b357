"""GPU memory of one workload process after warm-up, for the `memory` protocol event.

Three views, because each misses something: NVML's per-process figure (what the driver charges the
process: CUDA context, kernel images, the allocator's pool), torch's caching allocator
(reserved / allocated / peak), and the device's free memory (what a bigger batch or KV cache
could still take). Standard library (ctypes) only; NVML is optional.
"""

import ctypes
import os

MIB = 1 << 20


class _ProcessInfo(ctypes.Structure):
    # nvmlProcessInfo_t (v2/v3): pid, usedGpuMemory, gpuInstanceId, computeInstanceId
    _fields_ = [("pid", ctypes.c_uint), ("usedGpuMemory", ctypes.c_ulonglong), ("gpuInstanceId", ctypes.c_uint), ("computeInstanceId", ctypes.c_uint)]


class _MemoryInfo(ctypes.Structure):
    _fields_ = [("total", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong), ("used", ctypes.c_ulonglong)]


MAX_PROCESSES = 256  # bounded: a GPU shared by more processes than this is not a benchmark host


def nvml_process_memory(uuid):
    """(bytes used by this process per NVML or None, device {total, free, used} or None, reason or None)."""
    try:
        lib = ctypes.CDLL("libnvidia-ml.so.1")
    except OSError as e:
        return None, None, "libnvidia-ml.so.1 not loadable: %s" % e
    try:
        if lib.nvmlInit_v2() != 0:
            return None, None, "nvmlInit_v2 failed"
        handle = ctypes.c_void_p()
        if not uuid or lib.nvmlDeviceGetHandleByUUID(ctypes.c_char_p(uuid.encode()), ctypes.byref(handle)) != 0:
            return None, None, "no NVML handle for %s" % uuid
        mem = _MemoryInfo()
        device = None
        if lib.nvmlDeviceGetMemoryInfo(handle, ctypes.byref(mem)) == 0:
            device = {"total_bytes": mem.total, "free_bytes": mem.free, "used_bytes": mem.used}
        fn = getattr(lib, "nvmlDeviceGetComputeRunningProcesses_v3", None) or getattr(lib, "nvmlDeviceGetComputeRunningProcesses_v2")
        count = ctypes.c_uint(MAX_PROCESSES)
        procs = (_ProcessInfo * MAX_PROCESSES)()
        rc = fn(handle, ctypes.byref(count), procs)
        if rc != 0:
            return None, device, "nvmlDeviceGetComputeRunningProcesses failed (rc %d)" % rc
        me = os.getpid()
        for i in range(min(count.value, MAX_PROCESSES)):
            if procs[i].pid == me:
                used = procs[i].usedGpuMemory
                # NVML_VALUE_NOT_AVAILABLE (ULLONG_MAX) under some virtualisation/MIG setups
                if used >= (1 << 64) - 1:
                    return None, device, "NVML reports no per-process figure here"
                return int(used), device, None
        # In a PID namespace the driver may list the host's pid, which this process cannot see.
        return None, device, "this process (pid %d) is not in NVML's list of %d process(es) (PID namespace?)" % (me, count.value)
    except AttributeError as e:
        return None, None, "NVML symbol missing: %s" % e


def collect(torch, dev, uuid, kv_bytes_per_token=None):
    """The `memory` event's facts. kv_bytes_per_token: the LLM's KV-cache cost of one token (all layers)."""
    facts = {"after": "warmup"}
    proc_bytes, device, why = nvml_process_memory(uuid)
    facts["nvml_process_used_bytes"] = proc_bytes
    facts["nvml_process_unavailable_reason"] = why
    facts["nvml_device"] = device
    if torch is not None and dev is not None and getattr(dev, "type", None) == "cuda":
        free, total = torch.cuda.mem_get_info(dev)
        reserved = torch.cuda.memory_reserved(dev)
        allocated = torch.cuda.memory_allocated(dev)
        facts.update(
            {
                "torch_reserved_bytes": reserved,
                "torch_allocated_bytes": allocated,
                "torch_max_allocated_bytes": torch.cuda.max_memory_allocated(dev),
                "torch_max_reserved_bytes": torch.cuda.max_memory_reserved(dev),
                "device_free_bytes": free,
                "device_total_bytes": total,
                # Memory the process holds outside torch's pool: context, kernel images, libraries' workspaces.
                "non_torch_bytes": (proc_bytes - reserved) if proc_bytes is not None else None,
            }
        )
        if kv_bytes_per_token:
            # Room for more KV cache: what the device still has free plus the pool's unused part.
            room = free + max(0, reserved - allocated)
            facts["kv_bytes_per_token"] = kv_bytes_per_token
            facts["kv_cache_tokens_fit"] = int(room // kv_bytes_per_token)
    return facts
