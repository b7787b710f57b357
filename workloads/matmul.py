#!/usr/bin/env python3
"""Dense matrix product, the seed paper's workload (10,000 x 10,000 fp32, TF32 off), done right.

Start-up (interpreter, imports, device init, first kernel) is reported as phases, apart from the
steady state: each measured product is timed on the GPU with CUDA events (kernel_ms), with
TFLOP/s and, where the GPU's dense peak is known, percent of peak. --device cpu uses torch on the
CPU, or NumPy where torch is absent, timed with perf_counter.
"""

import sys
import time

_T0 = (time.time(), time.perf_counter())
sys.dont_write_bytecode = True

import importlib  # noqa: E402
import os  # noqa: E402

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import _gpu_memory  # noqa: E402
import _protocol as P  # noqa: E402
import _stack  # noqa: E402
import _stats as S  # noqa: E402
import _torchutil as TU  # noqa: E402

DTYPES = ("fp32", "tf32", "bf16", "fp16")
BACKENDS = ("torch", "cupy", "tensorflow", "numpy")
# The start event's parameters: each the command-line argument of the same name, in this order.
PARAMS = ("device", "size", "dtype", "backend", "warmup", "iters", "seed", "buffers", "min_warmup_s")

# Dense (no sparsity) peak TFLOP/s by GPU and dtype, from NVIDIA's datasheets.
_PEAK_SXM = {"fp32": 67.0, "tf32": 494.7, "bf16": 989.4, "fp16": 989.4}
_PEAK_PCIE = {"fp32": 51.0, "tf32": 378.0, "bf16": 756.0, "fp16": 756.0}


def peak_tflops(device_name, dtype):
    """Known dense peak for the named GPU, else None (never guessed)."""
    name = (device_name or "").upper()
    if "H200" in name and "NVL" not in name and "GH200" not in name:
        return _PEAK_SXM[dtype]
    if "H100" in name and "NVL" not in name and "GH" not in name:
        if "PCIE" in name:
            return _PEAK_PCIE[dtype]
        if "HBM3" in name or "SXM" in name:
            return _PEAK_SXM[dtype]
    return None


def parse(argv):
    p = P.make_parser("matmul", __doc__.splitlines()[0])
    p.add_argument("--size", type=int, default=None, help="n of the n x n product (gpu 10000, cpu 512)")
    p.add_argument("--dtype", choices=DTYPES, default="fp32", help="fp32 means TF32 off (default)")
    p.add_argument("--backend", choices=BACKENDS, default=None, help="gpu: torch; cpu: torch, else numpy")
    p.add_argument(
        "--buffers",
        type=int,
        default=0,
        help="input pairs to rotate through; 0 = enough to exceed 256 MiB (1 at large sizes)",
    )
    p.add_argument("--min-warmup-s", type=float, default=None, help="keep warming up this long, every backend (gpu 0.1)")
    args = p.parse_args(argv)
    gpu = args.device == "gpu"
    if gpu:
        TU.gpu_index()  # validate GPU_OVERHEAD_GPU before anything is imported
    # GPU warm-up: 3 products and at least 0.1 s. On an H100 (10000, fp32), 3 products (0.12 s) against the old
    # 10 and 0.5 s, alternating, back to back: the same median (40.778-40.780 ms either way) and the same first
    # measured products (+0.2-0.4% for the first, then within 0.05%); 0.4 s less of every process
    # (docs/evidence/2026-12-06-h100-startup.md).
    P.check_counts(args, 3, 50 if gpu else 20)
    if args.size is None:
        args.size = 10000 if gpu else 512
    if args.size < 1:
        raise P.WorkloadError("bad_args", "--size must be >= 1, got %d" % args.size)
    if args.buffers < 0:
        raise P.WorkloadError("bad_args", "--buffers must be >= 0, got %d" % args.buffers)
    if args.min_warmup_s is None:
        args.min_warmup_s = 0.1 if gpu else 0.0
    if args.backend == "numpy" and gpu:
        raise P.WorkloadError("bad_args", "--backend numpy runs on the CPU only: add --device cpu")
    if args.backend in ("cupy",) and not gpu:
        raise P.WorkloadError("bad_args", "--backend cupy needs --device gpu")
    return args


def n_buffers(requested, n, itemsize):
    if requested:
        return requested
    pair = 2 * n * n * itemsize
    return max(1, min(8, -(-(256 << 20) // pair)))


def warm_up(args, product, sync):
    """The warm-up every backend runs: --warmup products, then more until --min-warmup-s has passed since its
    start (a GPU's clocks and a held process's neighbour settle). product(i) runs product i; sync() waits for
    it. Returns (seconds, products run beyond --warmup)."""
    t = time.perf_counter()
    for i in range(args.warmup):
        product(i)
    sync()
    extra = 0
    while time.perf_counter() - t < args.min_warmup_s:
        product(args.warmup + extra)
        sync()
        extra += 1
    return time.perf_counter() - t, extra


def import_backend(proto, t, name, missing):
    """Imports a backend's module, ending the imports phase begun at t; missing: the error text (%s: why)."""
    try:
        module = importlib.import_module(name)
    except ImportError as e:
        raise P.WorkloadError("missing_backend", missing % P.short(e))
    proto.phase("imports", t, time.perf_counter())
    return module


def first_array_product(xp, rng_of, args):
    """NumPy and CuPy alike: nbuf pairs of random n x n operands (drawn in fp32, cast to --dtype), the
    output, and the first product, queued. Returns (when the first-kernel phase began, nbuf, As, Bs, C)."""
    dtype = xp.float16 if args.dtype == "fp16" else xp.float32
    n = args.size
    nbuf = n_buffers(args.buffers, n, xp.dtype(dtype).itemsize)
    t = time.perf_counter()
    rng = rng_of(args.seed)
    As = [rng.standard_normal((n, n), dtype=xp.float32).astype(dtype) for _ in range(nbuf)]
    Bs = [rng.standard_normal((n, n), dtype=xp.float32).astype(dtype) for _ in range(nbuf)]
    C = xp.empty((n, n), dtype=dtype)
    xp.matmul(As[0], Bs[0], out=C)
    return t, nbuf, As, Bs, C


def main(proto, argv):
    args = parse(argv)
    params = {name: getattr(args, name) for name in PARAMS}
    proto.start(params)
    backend = args.backend or "torch"
    if backend == "torch":
        run_torch(proto, args, params)
    elif backend == "numpy":
        run_numpy(proto, args)
    elif backend == "cupy":
        run_cupy(proto, args)
    else:
        run_tensorflow(proto, args)


def emit_results(proto, args, times_ms, timer, device_name, energy_j, measured_s, extra):
    n = args.size
    flops = 2.0 * n * n * n
    peak = peak_tflops(device_name, args.dtype) if args.device == "gpu" else None
    tflops = []
    for i, ms in enumerate(times_ms, 1):
        proto.sample("kernel_ms", ms, "ms", i, "lower")
        tf = flops / (ms * 1e-3) / 1e12 if ms > 0 else None
        if tf is None:
            continue
        tflops.append(tf)
        proto.sample("tflops", tf, "TFLOP/s", i, "higher", derived_from="kernel_ms")
        if peak:
            proto.sample("pct_of_peak", 100.0 * tf / peak, "%", i, "higher", derived_from="kernel_ms")
    d = S.describe(times_ms)
    med_tf = flops / (d["median"] * 1e-3) / 1e12 if d.get("median") else None
    facts = {
        "metric": "kernel_ms",
        "timer": timer,
        "size": n,
        "dtype": args.dtype,
        "flops_per_iter": flops,
        "iters": len(times_ms),
        "warmup": args.warmup,
        "median_ms": d.get("median"),
        "mean_ms": d.get("mean"),
        "sd_ms": d.get("sd"),
        "cv_pct": d.get("cv_pct"),
        "min_ms": d.get("min"),
        "max_ms": d.get("max"),
        "median_tflops": med_tf,
        "peak_tflops": peak,
        "pct_of_peak": (100.0 * med_tf / peak) if (peak and med_tf) else None,
        "measured_s": measured_s,
        "energy_j": energy_j,
        "avg_power_w": (energy_j / measured_s) if (energy_j is not None and measured_s) else None,
        "energy_per_iter_j": (energy_j / len(times_ms)) if energy_j is not None else None,
    }
    facts.update(extra)
    proto.summary(facts)


# ---- torch ----------------------------------------------------------------------------------


def run_torch(proto, args, params):
    gpu = args.device == "gpu"
    t = time.perf_counter()
    torch = TU.import_torch(required=gpu or args.backend == "torch")
    proto_backend = "torch"
    if torch is None:  # --device cpu without torch: NumPy fallback, the failed import counted
        return run_numpy(proto, args, t)
    proto.phase("imports", t, time.perf_counter())

    t = time.perf_counter()
    if gpu:
        dev = TU.torch_cuda_init(torch, TU.gpu_index())
    else:
        dev = torch.device("cpu")
    # Precision for fp32 products: "highest" = IEEE fp32 (TF32 off), "high" = TF32 allowed.
    torch.set_float32_matmul_precision("high" if args.dtype == "tf32" else "highest")
    proto.phase("device_init", t, time.perf_counter())

    dtype = {"fp32": torch.float32, "tf32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
    n = args.size
    itemsize = torch.empty((), dtype=dtype).element_size()
    nbuf = n_buffers(args.buffers, n, itemsize)
    env = TU.torch_env(torch, dev)
    env.update({"backend": proto_backend, "numpy": _numpy_version(), "buffers": nbuf, "timer": "cuda_event" if gpu else "perf_counter"})

    # First kernel: create the inputs on the device and run one product (cuBLAS handle,
    # workspace, kernel module loading all happen here).
    t = time.perf_counter()
    gen = torch.Generator(device=dev)
    gen.manual_seed(args.seed)
    As, Bs = [], []
    for _ in range(nbuf):
        As.append(torch.empty((n, n), dtype=dtype, device=dev).normal_(generator=gen))
        Bs.append(torch.empty((n, n), dtype=dtype, device=dev).normal_(generator=gen))
    C = torch.empty((n, n), dtype=dtype, device=dev)
    mm = torch.matmul
    mm(As[0], Bs[0], out=C)
    TU.sync(torch, dev)
    proto.phase("first_kernel", t, time.perf_counter())
    proto.env(env)
    proto.stack(_stack.collect(torch, dev))

    warmup_s, extra_warmup = warm_up(
        args, lambda i: mm(As[i % nbuf], Bs[i % nbuf], out=C), lambda: TU.sync(torch, dev)
    )
    if gpu:
        proto.memory(_gpu_memory.collect(torch, dev, env.get("device_uuid")))

    iters = args.iters
    energy = TU.NvmlEnergy(env.get("device_uuid"), dev.index) if gpu else None
    if gpu:
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
        TU.sync(torch, dev)
        e0 = energy.read_mj()
        proto.region("start")
        t0 = time.perf_counter()
        # Hot loop: async launches and event records only; one synchronisation at the end.
        for i in range(iters):
            k = i % nbuf
            starts[i].record()
            mm(As[k], Bs[k], out=C)
            ends[i].record()
        ends[-1].synchronize()
        measured_s = time.perf_counter() - t0
        proto.region("end")
        e1 = energy.read_mj()
        times = [s.elapsed_time(e) for s, e in zip(starts, ends)]
        energy_j, energy_why = TU.energy_result(energy, e0, e1, measured_s)
    else:
        times = []
        proto.region("start")
        t0 = time.perf_counter()
        for i in range(iters):
            k = i % nbuf
            a = time.perf_counter()
            mm(As[k], Bs[k], out=C)
            times.append((time.perf_counter() - a) * 1e3)
        measured_s = time.perf_counter() - t0
        proto.region("end")
        energy_j, energy_why = None, "cpu"
    finite = bool(torch.isfinite(C).all().item())
    emit_results(
        proto,
        args,
        times,
        env["timer"],
        env.get("device_name"),
        energy_j,
        measured_s,
        {
            "backend": "torch",
            "buffers": nbuf,
            "warmup_s": warmup_s,
            "extra_warmup_iters": extra_warmup,
            "output_finite": finite,
            "energy_source": "nvml" if energy_j is not None else None,
            "energy_unavailable_reason": energy_why,
            "device_name": env.get("device_name"),
        },
    )


def _numpy_version():
    mod = sys.modules.get("numpy")
    return getattr(mod, "__version__", None) if mod else None


# ---- numpy (CPU) ------------------------------------------------------------------------------


def run_numpy(proto, args, t_imports=None):
    if args.device != "cpu":
        raise P.WorkloadError("bad_args", "--backend numpy runs on the CPU only: add --device cpu")
    t = time.perf_counter() if t_imports is None else t_imports
    np = import_backend(proto, t, "numpy", "neither torch nor numpy is importable (%s)")
    if args.dtype == "bf16":
        raise P.WorkloadError("bad_args", "--dtype bf16 needs torch; NumPy has fp32 and fp16 only")
    t = time.perf_counter()
    proto.phase("device_init", t, time.perf_counter())
    t, nbuf, As, Bs, C = first_array_product(np, np.random.default_rng, args)
    proto.phase("first_kernel", t, time.perf_counter())
    proto.env(
        {
            "backend": "numpy",
            "numpy": np.__version__,
            "torch": None,
            "cuda": None,
            "device_name": "cpu",
            "tf32": False,
            "buffers": nbuf,
            "timer": "perf_counter",
        }
    )
    proto.stack(_stack.collect(np=np))
    warmup_s, extra_warmup = warm_up(args, lambda i: np.matmul(As[i % nbuf], Bs[i % nbuf], out=C), lambda: None)
    times = []
    proto.region("start")
    t0 = time.perf_counter()
    for i in range(args.iters):
        k = i % nbuf
        a = time.perf_counter()
        np.matmul(As[k], Bs[k], out=C)
        times.append((time.perf_counter() - a) * 1e3)
    measured_s = time.perf_counter() - t0
    proto.region("end")
    emit_results(
        proto,
        args,
        times,
        "perf_counter",
        "cpu",
        None,
        measured_s,
        {
            "backend": "numpy",
            "buffers": nbuf,
            "warmup_s": warmup_s,
            "extra_warmup_iters": extra_warmup,
            "output_finite": bool(np.isfinite(C).all()),
            "energy_source": None,
            "energy_unavailable_reason": "cpu",
            "device_name": "cpu",
        },
    )


# ---- cupy ---------------------------------------------------------------------------------------


def run_cupy(proto, args):
    t = time.perf_counter()
    # CuPy reads CUPY_TF32 when it loads cuBLAS: set it before the import.
    os.environ["CUPY_TF32"] = "1" if args.dtype == "tf32" else "0"
    cp = import_backend(proto, t, "cupy", "--backend cupy: cupy is not importable (%s)")
    if args.dtype == "bf16":
        raise P.WorkloadError("bad_args", "--backend cupy has no bf16; use fp32, tf32 or fp16")
    t = time.perf_counter()
    idx = TU.gpu_index()
    try:
        count = cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # cupy raises CUDARuntimeError when the driver is unusable
        raise P.WorkloadError("no_gpu", "cupy found no usable CUDA GPU: %s" % P.short(e))
    if idx >= count:
        raise P.WorkloadError("no_gpu", "GPU_OVERHEAD_GPU=%d but only %d GPU(s) are visible" % (idx, count))
    cp.cuda.Device(idx).use()
    cp.empty(1, dtype=cp.float32)
    cp.cuda.Device(idx).synchronize()
    proto.phase("device_init", t, time.perf_counter())
    props = cp.cuda.runtime.getDeviceProperties(idx)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    t, nbuf, As, Bs, C = first_array_product(cp, cp.random.RandomState, args)
    cp.cuda.Device(idx).synchronize()
    proto.phase("first_kernel", t, time.perf_counter())
    uuid = None
    try:
        raw = bytes(props.get("uuid", b""))
        if len(raw) == 16:
            h = raw.hex()
            uuid = "GPU-%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])
    except Exception:
        pass
    proto.env(
        {
            "backend": "cupy",
            "cupy": cp.__version__,
            "cuda": cp.cuda.runtime.runtimeGetVersion(),
            "device_name": name,
            "device_uuid": uuid,
            "device_index": idx,
            "tf32": args.dtype == "tf32",
            "buffers": nbuf,
            "timer": "cuda_event",
        }
    )
    warmup_s, extra_warmup = warm_up(
        args, lambda i: cp.matmul(As[i % nbuf], Bs[i % nbuf], out=C), cp.cuda.Device(idx).synchronize
    )
    energy = TU.NvmlEnergy(uuid, idx)
    starts = [cp.cuda.Event() for _ in range(args.iters)]
    ends = [cp.cuda.Event() for _ in range(args.iters)]
    e0 = energy.read_mj()
    t0 = time.perf_counter()
    for i in range(args.iters):
        k = i % nbuf
        starts[i].record()
        cp.matmul(As[k], Bs[k], out=C)
        ends[i].record()
    ends[-1].synchronize()
    measured_s = time.perf_counter() - t0
    e1 = energy.read_mj()
    times = [cp.cuda.get_elapsed_time(s, e) for s, e in zip(starts, ends)]
    energy_j, energy_why = TU.energy_result(energy, e0, e1, measured_s)
    emit_results(
        proto,
        args,
        times,
        "cuda_event",
        name,
        energy_j,
        measured_s,
        {
            "backend": "cupy",
            "buffers": nbuf,
            "warmup_s": warmup_s,
            "extra_warmup_iters": extra_warmup,
            "output_finite": bool(cp.isfinite(C).all().get()),
            "energy_source": "nvml" if energy_j is not None else None,
            "energy_unavailable_reason": energy_why,
            "device_name": name,
        },
    )


# ---- tensorflow (the seed paper's framework) ---------------------------------------------------


def run_tensorflow(proto, args):
    gpu = args.device == "gpu"
    t = time.perf_counter()
    tf = import_backend(proto, t, "tensorflow", "--backend tensorflow: tensorflow is not importable (%s)")
    t = time.perf_counter()
    tf.config.experimental.enable_tensor_float32_execution(args.dtype == "tf32")
    if gpu:
        gpus = tf.config.list_physical_devices("GPU")
        idx = TU.gpu_index()
        if idx >= len(gpus):
            raise P.WorkloadError("no_gpu", "tensorflow sees %d GPU(s); GPU_OVERHEAD_GPU=%d" % (len(gpus), idx))
        dev_name = "/GPU:%d" % idx
    else:
        dev_name = "/CPU:0"
    with tf.device(dev_name):
        tf.zeros([1]).numpy()
    proto.phase("device_init", t, time.perf_counter())
    dtype = {"fp32": tf.float32, "tf32": tf.float32, "bf16": tf.bfloat16, "fp16": tf.float16}[args.dtype]
    n = args.size
    t = time.perf_counter()
    with tf.device(dev_name):
        tf.random.set_seed(args.seed)
        a = tf.cast(tf.random.normal([n, n]), dtype)
        b = tf.cast(tf.random.normal([n, n]), dtype)
        c = tf.linalg.matmul(a, b)
        c[0, 0].numpy()
    proto.phase("first_kernel", t, time.perf_counter())
    name = dev_name
    if gpu:
        try:
            name = tf.config.experimental.get_device_details(tf.config.list_physical_devices("GPU")[idx]).get("device_name", dev_name)
        except Exception:
            pass
    # TensorFlow has no CUDA event API in Python: time each product on the host, ended by a
    # 1-element read-back that waits for it (timer = perf_counter_sync).
    proto.env({"backend": "tensorflow", "tensorflow": tf.__version__, "device_name": name, "tf32": args.dtype == "tf32", "timer": "perf_counter_sync"})
    with tf.device(dev_name):
        # Each product ends with a 1-element read-back that waits for it: nothing left to sync.
        warmup_s, extra_warmup = warm_up(args, lambda _: tf.linalg.matmul(a, b)[0, 0].numpy(), lambda: None)
        times = []
        t0 = time.perf_counter()
        for _ in range(args.iters):
            s = time.perf_counter()
            tf.linalg.matmul(a, b)[0, 0].numpy()
            times.append((time.perf_counter() - s) * 1e3)
        measured_s = time.perf_counter() - t0
    extra = {"backend": "tensorflow", "warmup_s": warmup_s, "extra_warmup_iters": extra_warmup}
    extra.update({"energy_source": None, "device_name": name})
    emit_results(proto, args, times, "perf_counter_sync", name, None, measured_s, extra)


if __name__ == "__main__":
    P.run(P.Protocol("matmul", *_T0), main)
