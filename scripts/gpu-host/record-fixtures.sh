#!/bin/bash
# Records real tool outputs on the GPU host for unit-test fixtures (run there, after setup.sh).
# Usage: bash scripts/gpu-host/record-fixtures.sh DEST
set -u
D=${1:?dest}; mkdir -p "$D"
run() { local f=$1; shift; echo "\$ $*" > "$D/$f.cmd"; "$@" > "$D/$f" 2> "$D/$f.stderr"; echo "rc=$?" >> "$D/$f.cmd"; }
run nvidia-smi.txt nvidia-smi
run nvidia-smi-q.txt nvidia-smi -q
run help-query-gpu.txt nvidia-smi --help-query-gpu
run query-gpu-preflight.csv nvidia-smi --query-gpu=index,name,uuid,driver_version,persistence_mode,mig.mode.current,power.limit,power.default_limit,power.min_limit,power.max_limit,clocks.sm,clocks.max.sm,clocks.applications.graphics,clocks.default_applications.graphics,ecc.mode.current,compute_mode,memory.total,pci.bus_id --format=csv,noheader,nounits
run query-gpu-preflight-header.csv nvidia-smi --query-gpu=index,name,uuid,driver_version,persistence_mode,mig.mode.current,power.limit,clocks.sm,clocks.max.sm,ecc.mode.current,compute_mode,memory.total --format=csv
run query-gpu-bad-field.txt nvidia-smi --query-gpu=index,not.a.field --format=csv,noheader,nounits
run query-throttle-old-name.csv nvidia-smi --query-gpu=clocks_throttle_reasons.active --format=csv,noheader,nounits
# Compute apps with names while a second CUDA process holds the GPU (the co-tenant probe, execute/cotenants.ts).
python3 -c 'import torch, time; x = torch.ones(1, device="cuda"); time.sleep(15)' cotenant-probe & CP=$!
sleep 8
run compute-apps-named.csv nvidia-smi --query-compute-apps=gpu_uuid,pid,process_name,used_memory --format=csv,noheader,nounits
kill $CP; wait $CP 2>/dev/null
# Telemetry while a real matmul runs (idle at the start and end).
nvidia-smi --query-gpu=timestamp,index,uuid,utilization.gpu,utilization.memory,clocks.sm,clocks.mem,power.draw,power.draw.instant,temperature.gpu,memory.used,pstate,clocks_event_reasons.active --format=csv,noheader,nounits -lms 100 > "$D/telemetry-lms.csv" 2> "$D/telemetry-lms.stderr" &
TP=$!
sleep 1
python3 - <<'PY' > "$D/torch-matmul-baseline.txt" 2>&1
import torch, time
print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))
def bench(n, dt, iters=50):
    a = torch.randn(n, n, device="cuda", dtype=dt); b = torch.randn(n, n, device="cuda", dtype=dt); c = torch.empty_like(a)
    for _ in range(10): torch.matmul(a, b, out=c)
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    best = 0
    for rep in range(3):
        s.record()
        for _ in range(iters): torch.matmul(a, b, out=c)
        e.record(); e.synchronize()
        ms = s.elapsed_time(e) / iters
        tf = 2 * n**3 / (ms / 1e3) / 1e12
        best = max(best, tf)
        print(f"n={n} {dt} {ms:.3f} ms/iter {tf:.1f} TFLOP/s")
    print(f"BEST n={n} {dt} {best:.1f} TFLOP/s")
torch.backends.cuda.matmul.allow_tf32 = False
bench(10000, torch.float32, 20)
bench(8192, torch.bfloat16, 100)
PY
sleep 1; kill $TP; wait $TP 2>/dev/null
if command -v docker >/dev/null; then
  run docker-version.txt docker version
  run docker-info.txt docker info
  run docker-image-inspect-gpu-torch-host.json docker image inspect local/gpu-torch:host
  run docker-run-true.txt bash -c 'for i in 1 2 3 4 5; do /usr/bin/time -f %e docker run --rm --network none local/gpu-torch:host true; done'
  run container-mountinfo.txt docker run --rm --network none -v /tmp:/data:ro --tmpfs /scratch local/gpu-torch:host cat /proc/self/mountinfo
  run container-nvidia-smi.txt docker run --rm --network none $GPU_DOCKER_ARGS local/gpu-torch:host nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  run container-torch.txt docker run --rm --network none $GPU_DOCKER_ARGS local/gpu-torch:host python3 -c 'import torch,sys; print(sys.executable, torch.__version__, torch.cuda.is_available(), torch.cuda.get_device_name(0))'
fi
run python-env.txt bash -c 'which python3; python3 --version; python3 -c "import numpy; print(numpy.__version__)"; env | grep -E "^(CUDA|NVIDIA|PATH|LD_)" ; cat /etc/os-release | head -3; nproc; free -g; df -h / /tmp'
