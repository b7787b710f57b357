"""The software stack one workload process actually runs on, for the `stack` protocol event.

Both arms run this same code, so the runner can diff what each arm really loaded: Python, torch
and the CUDA libraries it mapped (by the files in /proc/self/maps, not by what a package claims),
NumPy and the BLAS that answers its calls, the precision flags in effect, SDPA backends, CPU
affinity, cgroup CPU limits, thread counts, the CUDA JIT cache, and every environment variable of
a family known to change numerics or performance. Facts that cannot be read are None, never guessed.
Standard library only; torch and numpy are passed in by the caller when it imported them.
"""

import ctypes
import os
import platform
import re
import sys

try:  # a package in the tests, plain modules beside the script when a workload runs
    from ._secrets import is_secret_name
except ImportError:
    from _secrets import is_secret_name

# Families of environment variables that change numerics, performance, memory or start-up.
ENV_PREFIXES = (
    "CUDA_",
    "CUBLAS_",
    "CUBLASLT_",
    "CUDNN_",
    "CUFFT_",
    "CURAND_",
    "CUSPARSE_",
    "NCCL_",
    "NVIDIA_",
    "NVTE_",
    "TORCH_",
    "TORCHINDUCTOR_",
    "PYTORCH_",
    "TRITON_",
    "OMP_",
    "GOMP_",
    "KMP_",
    "MKL_",
    "OPENBLAS_",
    "GOTO_",
    "BLIS_",
    "VECLIB_",
    "NUMEXPR_",
    "TF_ENABLE_",
    "TF_GPU_",
    "TF_FORCE_",
    "TF_XLA_",
    "TF_CUDNN_",
    "XLA_",
    "JAX_",
    "MALLOC_",
)
ENV_NAMES = ("LD_PRELOAD", "LD_LIBRARY_PATH", "LD_BIND_NOW", "GLIBC_TUNABLES", "PYTHONMALLOC", "PYTHONHASHSEED")
# Values of these are never recorded (a token in NVIDIA_API_KEY must not reach a report).
REDACTED = "<redacted>"
MAX_VALUE_CHARS = 300

# Shared objects whose identity matters for speed or numerics: the mapped file names them.
LIB_PATTERNS = (
    ("cudart", r"libcudart\.so"),
    ("cuda_driver", r"libcuda\.so"),
    ("nvml", r"libnvidia-ml\.so"),
    ("cublas", r"libcublas\.so"),
    ("cublaslt", r"libcublasLt\.so"),
    ("cudnn", r"libcudnn\.so"),
    ("nccl", r"libnccl\.so"),
    ("nvrtc", r"libnvrtc\.so"),
    ("nvjitlink", r"libnvJitLink\.so"),
    ("cusparselt", r"libcusparseLt\.so"),
    ("torch_cuda", r"libtorch_cuda\.so"),
    ("torch_cpu", r"libtorch_cpu\.so"),
    ("blas", r"lib(?:scipy_)?openblas|libblas\.so|libmkl_rt|libmkl_core|libblis|libflexiblas|libcblas\.so|libsatlas|libtatlas|libaccelerate"),
    ("lapack", r"liblapack\.so"),
    ("openmp", r"libgomp|libiomp5|libomp\.so"),
    ("malloc", r"libtcmalloc|libjemalloc|libmimalloc"),
    ("libc", r"/libc\.so|/libc-\d"),
)


def _clip(value):
    value = str(value)
    return value if len(value) <= MAX_VALUE_CHARS else value[: MAX_VALUE_CHARS - 1] + "\u2026"


def relevant_env(environ=None):
    """{name: value} of the variables in the families above; secrets redacted, long values clipped."""
    environ = os.environ if environ is None else environ
    out = {}
    for name in sorted(environ):
        if not (name.startswith(ENV_PREFIXES) or name in ENV_NAMES):
            continue
        out[name] = REDACTED if is_secret_name(name) else _clip(environ[name])
    return out


def mapped_libraries(maps_path="/proc/self/maps"):
    """{kind: [file, ...]} of the shared objects this process has mapped (real paths, sorted)."""
    try:
        with open(maps_path) as f:
            paths = sorted({line.split(None, 5)[5].strip() for line in f if len(line.split(None, 5)) == 6})
    except (OSError, IndexError):
        return None
    out = {}
    for p in paths:
        if ".so" not in p:
            continue
        for kind, pattern in LIB_PATTERNS:
            if re.search(pattern, p):
                out.setdefault(kind, []).append(p)
                break
    return out


def _cpu_list(cpus):
    """[0,1,2,5] -> '0-2,5' (the kernel's own list format)."""
    cpus = sorted(cpus)
    parts = []
    i = 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        parts.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(parts)


def _read_first_line(path):
    try:
        with open(path) as f:
            return f.readline().strip()
    except OSError:
        return None


# v1 reports "no memory limit" as a page-rounded LONG_MAX; anything this large is no limit.
_V1_NO_MEMORY_LIMIT = 1 << 62


def _own_cgroup_paths(proc_cgroup):
    """{controller: path} of this process from /proc/self/cgroup; "" is the v2 (unified) hierarchy."""
    out = {}
    try:
        with open(proc_cgroup) as f:
            lines = f.read(65536).splitlines()
    except OSError:
        return out
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) == 3:
            for c in parts[1].split(",") if parts[1] else [""]:
                out[c] = parts[2]
    return out


def _chain(mount, rel):
    """mount/rel and its ancestors up to mount, deepest first (a path that leaves the mount is the mount).

    /sys/fs/cgroup's top files are the mount's own: in a container with its own cgroup namespace that is the
    container's cgroup, but a native process sits in a slice below the host's root, whose limits are on its
    own path and its ancestors'; so every folder on the way is read and the tightest limit counts."""
    here = os.path.normpath(os.path.join(mount, (rel or "").lstrip("/")))
    if here != mount and not here.startswith(mount.rstrip("/") + "/"):
        here = mount
    dirs = [here]
    while here != mount:
        here = os.path.dirname(here)
        dirs.append(here)
    return dirs


def _tightest_cpu(quotas):
    """The (quota, period) pair with the smallest share, as "QUOTA PERIOD", or "max" when none limits."""
    best, share = "max", None
    for q, p in quotas:
        if q.isdigit() and p.isdigit() and int(q) > 0 and int(p) > 0 and (share is None or int(q) / int(p) < share):
            best, share = "%s %s" % (q, p), int(q) / int(p)
    return best


def _tightest_memory(limits):
    """The smallest limit in bytes, or "max" when none limits (v1 spells none as a page-rounded LONG_MAX)."""
    found = [int(m) for m in limits if m and m.isdigit() and int(m) < _V1_NO_MEMORY_LIMIT]
    return str(min(found)) if found else "max"


def cgroup_limits(root="/sys/fs/cgroup", proc_cgroup="/proc/self/cgroup"):
    """(CPU quota, memory limit) in effect for this process: the tightest along its own cgroup path.

    CPU as "QUOTA PERIOD" (µs) or "max"; memory as bytes or "max". No limit reads "max" however it is spelt
    (v2's "max 100000", v1's -1 and LONG_MAX, the v2 root's missing files), so two arms without limits never
    differ by spelling. None where the hierarchy cannot be read."""
    own = _own_cgroup_paths(proc_cgroup)
    if os.path.exists(os.path.join(root, "cgroup.controllers")):
        dirs = _chain(root, own.get(""))
        cpu = []
        for d in dirs:
            parts = (_read_first_line(os.path.join(d, "cpu.max")) or "").split()
            if len(parts) == 2:
                cpu.append((parts[0], parts[1]))
        mem = [_read_first_line(os.path.join(d, "memory.max")) for d in dirs]
        return _tightest_cpu(cpu), _tightest_memory(mem)

    def v1(controller, *files):
        mount = os.path.join(root, controller)
        if not os.path.isdir(mount):
            return None
        rows = [tuple(_read_first_line(os.path.join(d, f)) for f in files) for d in _chain(mount, own.get(controller))]
        return [r for r in rows if r[0] is not None]

    cpu = v1("cpu", "cpu.cfs_quota_us", "cpu.cfs_period_us")
    mem = v1("memory", "memory.limit_in_bytes")
    return (
        None if not cpu else _tightest_cpu([(q, p or "") for q, p in cpu]),
        None if not mem else _tightest_memory([m for (m,) in mem]),
    )


def effective_cpu_limit(limit, cpus):
    """A quota of at least as many CPUs as the process may run on cannot hold it back: it reads "max", so a
    2-CPU quota on a 2-CPU host (a CI container's --cpus 2) is not an allotment the other arm lacks."""
    parts = (limit or "").split()
    if cpus and len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit() and int(parts[1]) > 0:
        if int(parts[0]) / int(parts[1]) >= cpus:
            return "max"
    return limit


def cpu_facts():
    facts = {"cpu_count": os.cpu_count(), "affinity_count": None, "affinity": None}
    try:
        aff = os.sched_getaffinity(0)
        facts["affinity_count"] = len(aff)
        facts["affinity"] = _cpu_list(aff)
    except (AttributeError, OSError):
        pass
    # The mount's own files, as recorded since the first stacks (they are part of the stack digest that keys
    # stored baselines). A native process's limits are on its own cgroup path: cpu_limit and memory_limit.
    quota = _read_first_line("/sys/fs/cgroup/cpu.max")
    if quota is None:
        q = _read_first_line("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")
        p = _read_first_line("/sys/fs/cgroup/cpu/cpu.cfs_period_us")
        quota = None if q is None else ("max %s" % p if q == "-1" else "%s %s" % (q, p))
    facts["cgroup_cpu_max"] = quota
    facts["cgroup_memory_max"] = _read_first_line("/sys/fs/cgroup/memory.max") or _read_first_line("/sys/fs/cgroup/memory/memory.limit_in_bytes")
    cpu_limit, facts["memory_limit"] = cgroup_limits()
    facts["cpu_limit"] = effective_cpu_limit(cpu_limit, facts["affinity_count"] or facts["cpu_count"])
    model = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    facts["model"] = model
    facts["governor"] = _read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
    return facts


def launch_facts():
    """How this process was launched, read from inside: what container launch flags change (docker's
    --shm-size/--ipc, --ulimit, --user). The runner adds the entrypoint and the flags themselves."""
    facts = {"shm_bytes": None, "uid": None, "gid": None}
    try:
        st = os.statvfs("/dev/shm")
        facts["shm_bytes"] = st.f_blocks * st.f_frsize
    except (AttributeError, OSError):
        pass
    try:
        facts["uid"], facts["gid"] = os.getuid(), os.getgid()
    except AttributeError:
        pass
    try:
        import resource

        for name in ("memlock", "stack", "nofile", "nproc"):
            lim = getattr(resource, "RLIMIT_" + name.upper(), None)
            if lim is None:
                continue
            soft, hard = resource.getrlimit(lim)
            show = lambda v: "unlimited" if v == resource.RLIM_INFINITY else str(v)  # noqa: E731
            facts["ulimit_" + name] = "%s:%s" % (show(soft), show(hard))
    except (ImportError, OSError, ValueError):
        pass
    return facts


# ---- BLAS behind NumPy ----------------------------------------------------------------------------

# (symbol, kind) to ask a loaded library who it is; scipy-openblas prefixes and suffixes its names.
_BLAS_CONFIG_SYMBOLS = (
    ("openblas_get_config", "openblas"),
    ("openblas_get_config64_", "openblas"),
    ("scipy_openblas_get_config", "openblas"),
    ("scipy_openblas_get_config64_", "openblas"),
    ("MKL_Get_Version_String", "mkl"),
    ("bli_info_get_version_str", "blis"),
    ("flexiblas_current_backend", "flexiblas"),
)
_BLAS_THREAD_SYMBOLS = (
    "openblas_get_num_threads",
    "openblas_get_num_threads64_",
    "scipy_openblas_get_num_threads",
    "scipy_openblas_get_num_threads64_",
    "MKL_Get_Max_Threads",
    "bli_thread_get_num_threads",
)


def _blas_identity(path):
    """(kind, version-or-config string, threads) of one loaded BLAS library, read through its own API."""
    try:
        lib = ctypes.CDLL(path, mode=getattr(os, "RTLD_NOLOAD", 4) | ctypes.RTLD_GLOBAL)
    except OSError:
        return None, None, None
    kind, config = None, None
    for sym, k in _BLAS_CONFIG_SYMBOLS:
        fn = getattr(lib, sym, None)
        if fn is None:
            continue
        kind = k
        if k == "mkl":
            buf = ctypes.create_string_buffer(256)
            fn.argtypes = [ctypes.c_char_p, ctypes.c_int]
            fn(buf, 256)
            config = buf.value.decode("utf-8", "replace")
        elif k == "flexiblas":
            buf = ctypes.create_string_buffer(256)
            fn.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
            fn(buf, 256)
            config = buf.value.decode("utf-8", "replace")
        else:
            fn.restype = ctypes.c_char_p
            raw = fn()
            config = raw.decode("utf-8", "replace").strip() if raw else None
        break
    threads = None
    for sym in _BLAS_THREAD_SYMBOLS:
        fn = getattr(lib, sym, None)
        if fn is not None:
            fn.restype = ctypes.c_int
            threads = int(fn())
            break
    if kind is None:
        # A libblas.so without any vendor API is the reference (netlib) implementation.
        base = os.path.basename(path)
        kind = "reference" if base.startswith(("libblas.so", "libcblas.so")) else "unknown"
    return kind, config, threads


def numpy_blas(np, libs):
    """What answers NumPy's BLAS calls: the build-time name and the library actually loaded."""
    if np is None:
        return None
    build = None
    try:
        cfg = np.show_config(mode="dicts")  # NumPy >= 1.26
        b = cfg.get("Build Dependencies", {}).get("blas", {})
        build = {"name": b.get("name"), "version": b.get("version"), "openblas_configuration": b.get("openblas configuration")}
    except TypeError:  # older NumPy: show_config() only prints; its blas_opt_info names the link libraries
        info = getattr(getattr(np, "__config__", None), "blas_opt_info", None) or {}
        build = {"name": ",".join(info.get("libraries", [])) or None, "version": None, "openblas_configuration": None}
    except Exception:
        pass
    runtime = []
    for path in (libs or {}).get("blas", []):
        kind, config, threads = _blas_identity(path)
        runtime.append({"library": path, "kind": kind, "config": config, "threads": threads})
    tpc = None
    try:
        import threadpoolctl  # noqa: F401  (optional: where present it is the reference)

        tpc = [
            {k: info.get(k) for k in ("internal_api", "version", "num_threads", "threading_layer", "architecture", "filepath")}
            for info in threadpoolctl.threadpool_info()
        ]
    except Exception:
        pass
    first = runtime[0] if runtime else {}
    return {
        "name": first.get("kind"),
        "config": first.get("config"),
        "threads": first.get("threads"),
        "library": first.get("library"),
        "loaded": runtime,
        "build": build,
        "threadpoolctl": tpc,
    }


# ---- CUDA ---------------------------------------------------------------------------------------


def _version_from_lib(paths, symbol, by_ref=True):
    """Call an int-returning `symbol(int*)` (or `size_t symbol()`) of an already-loaded library."""
    for path in paths or []:
        try:
            lib = ctypes.CDLL(path, mode=getattr(os, "RTLD_NOLOAD", 4))
            fn = getattr(lib, symbol)
        except (OSError, AttributeError):
            continue
        if by_ref:
            v = ctypes.c_int()
            if fn(ctypes.byref(v)) == 0:
                return int(v.value)
        else:
            fn.restype = ctypes.c_size_t
            return int(fn())
    return None


def _cublas_version(paths):
    """'MAJOR.MINOR.PATCH' through cublasGetProperty (needs no handle)."""
    parts = []
    for prop in (0, 1, 2):  # MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
        for path in paths or []:
            try:
                fn = ctypes.CDLL(path, mode=getattr(os, "RTLD_NOLOAD", 4)).cublasGetProperty
            except (OSError, AttributeError):
                continue
            v = ctypes.c_int()
            if fn(ctypes.c_int(prop), ctypes.byref(v)) == 0:
                parts.append(str(v.value))
                break
    return ".".join(parts) if len(parts) == 3 else None


def _nvml_driver():
    try:
        lib = ctypes.CDLL("libnvidia-ml.so.1")
        if lib.nvmlInit_v2() != 0:
            return None
        buf = ctypes.create_string_buffer(96)
        ok = lib.nvmlSystemGetDriverVersion(buf, ctypes.c_uint(96)) == 0
        return buf.value.decode() if ok else None
    except (OSError, AttributeError):
        return None


def _cuda_cache():
    """The CUDA JIT (PTX -> SASS) cache this process uses, and how much it holds now."""
    disabled = os.environ.get("CUDA_CACHE_DISABLE") == "1"
    path = os.environ.get("CUDA_CACHE_PATH") or os.path.join(os.path.expanduser("~"), ".nv", "ComputeCache")
    size = 0
    files = 0
    exists = os.path.isdir(path)
    if exists:
        for root, _dirs, names in os.walk(path):
            for n in names:
                try:
                    size += os.lstat(os.path.join(root, n)).st_size
                    files += 1
                except OSError:
                    pass
                if files > 100000:  # bounded walk
                    break
    return {"path": path, "disabled": disabled, "exists": exists, "bytes": size if exists else None, "files": files if exists else None}


def torch_facts(torch, dev, libs):
    """torch's build, the CUDA libraries it loaded, and the precision/backend switches in effect."""
    if torch is None:
        return None
    t = {
        "version": torch.__version__,
        "git_version": getattr(torch.version, "git_version", None),
        "cuda_build": getattr(torch.version, "cuda", None),
        "num_threads": torch.get_num_threads(),
        "num_interop_threads": torch.get_num_interop_threads(),
        "mkl": bool(getattr(torch.backends, "mkl", None) and torch.backends.mkl.is_available()),
        "openmp": bool(getattr(torch.backends, "openmp", None) and torch.backends.openmp.is_available()),
    }
    prec = {"float32_matmul_precision": torch.get_float32_matmul_precision()}
    cuda_b = getattr(torch.backends, "cuda", None)
    cudnn_b = getattr(torch.backends, "cudnn", None)
    for name, get in (
        ("cuda_matmul_allow_tf32", lambda: cuda_b.matmul.allow_tf32),
        ("cuda_matmul_fp16_reduced_precision", lambda: cuda_b.matmul.allow_fp16_reduced_precision_reduction),
        ("cuda_matmul_bf16_reduced_precision", lambda: cuda_b.matmul.allow_bf16_reduced_precision_reduction),
        ("cuda_matmul_fp32_precision", lambda: cuda_b.matmul.fp32_precision),  # torch >= 2.9
        ("cudnn_allow_tf32", lambda: cudnn_b.allow_tf32),
        ("cudnn_fp32_precision", lambda: cudnn_b.fp32_precision),
        ("cudnn_benchmark", lambda: cudnn_b.benchmark),
        ("cudnn_deterministic", lambda: cudnn_b.deterministic),
        ("deterministic_algorithms", lambda: torch.are_deterministic_algorithms_enabled()),
        ("preferred_blas_library", lambda: str(cuda_b.preferred_blas_library())),
    ):
        try:
            prec[name] = get()
        except Exception:
            prec[name] = None
    sdpa = {}
    for name, fn in (("flash", "flash_sdp_enabled"), ("mem_efficient", "mem_efficient_sdp_enabled"), ("math", "math_sdp_enabled"), ("cudnn", "cudnn_sdp_enabled")):
        try:
            sdpa[name] = bool(getattr(cuda_b, fn)())
        except Exception:
            sdpa[name] = None
    t["precision"] = prec
    t["sdpa"] = sdpa
    cuda = None
    if dev is not None and getattr(dev, "type", None) == "cuda":
        cap = torch.cuda.get_device_capability(dev)
        arch = "sm_%d%d" % cap
        arch_list = list(torch.cuda.get_arch_list())
        nccl = None
        try:
            nccl = ".".join(str(x) for x in torch.cuda.nccl.version())
        except Exception:
            pass
        cuda = {
            "runtime": _version_from_lib(libs.get("cudart"), "cudaRuntimeGetVersion") if libs else None,
            "driver_api": _version_from_lib(libs.get("cuda_driver"), "cuDriverGetVersion") if libs else None,
            "driver": _nvml_driver(),
            "cublas": _cublas_version(libs.get("cublas")),
            "cublaslt": _version_from_lib(libs.get("cublaslt"), "cublasLtGetVersion", by_ref=False) if libs else None,
            "cudnn": cudnn_b.version() if cudnn_b is not None and cudnn_b.is_available() else None,
            "nccl": nccl,
            "device_arch": arch,
            "arch_list": arch_list,
            # No SASS for this GPU in the build: every kernel is JIT-compiled from PTX at first use.
            "sass_for_device": arch in arch_list,
            "module_loading": os.environ.get("CUDA_MODULE_LOADING"),
            "jit_cache": _cuda_cache(),
        }
    t["cuda"] = cuda
    return t


def collect(torch=None, dev=None, np=None, maps_path="/proc/self/maps"):
    """The `stack` event's facts (call after the backend is imported and the device is initialised)."""
    libs = mapped_libraries(maps_path)
    if np is None:
        np = sys.modules.get("numpy")
    return {
        "python": {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
            "compiler": platform.python_compiler(),
            "executable": sys.executable,
        },
        "os": {"kernel": platform.release(), "libc": "%s %s" % platform.libc_ver()},
        "torch": torch_facts(torch, dev, libs or {}),
        "numpy": None if np is None else {"version": np.__version__, "blas": numpy_blas(np, libs)},
        "cpu": cpu_facts(),
        "launch": launch_facts(),
        "libraries": libs,
        "env": relevant_env(),
    }
