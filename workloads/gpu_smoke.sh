#!/usr/bin/env bash
# Smoke-run the workloads natively on a GPU host and print a compact table.
#
# Usage (from anywhere):  workloads/gpu_smoke.sh [PYTHON]        PYTHON defaults to python3
# Environment:
#   OUT=DIR       where raw JSON lines go: DIR/<name>.jsonl (default ./gpu-smoke-out)
#   REPEAT=N      processes per GPU variant, to see process-to-process spread (default 3)
#   IO_MB=N       io checkpoint/scratch size in MiB (default 2048, the workload's default)
#   SKIP=LIST     comma list of names to skip: matmul,matmul_bf16,ref,llm,llm_eager,io
# Files: <name>.jsonl per variant (processes appended one after another), runs.tsv (name, rc,
# wall seconds, extra), smoke.log (stderr of every process), table.txt (the table below).
set -u
PY=${1:-python3}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/gpu-smoke-out}
REPEAT=${REPEAT:-3}
IO_MB=${IO_MB:-2048}
SKIP=",${SKIP:-},"
mkdir -p "$OUT"
export PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
LOG="$OUT/smoke.log"
RUNS="$OUT/runs.tsv"
: >"$LOG"
: >"$RUNS"
for n in matmul matmul_bf16 llm llm_eager io; do : >"$OUT/$n.jsonl"; done

skip() { [[ "$SKIP" == *",$1,"* ]]; }

run() { # name script args...
  local name=$1 script=$2
  shift 2
  local t0 t1 rc
  echo "== $name: $script $*" >>"$LOG"
  t0=$(date +%s.%N)
  "$PY" "$HERE/$script" "$@" >>"$OUT/$name.jsonl" 2>>"$LOG"
  rc=$?
  t1=$(date +%s.%N)
  local wall
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
  printf '%s\t%s\t%s\t\n' "$name" "$rc" "$wall" >>"$RUNS"
  printf '%-12s rc=%s %8ss\n' "$name" "$rc" "$wall"
}

# A plain torch.matmul loop, the yardstick for matmul.py's 8192^2 bf16 speed bar (>= 90%).
ref() {
  local tf
  tf=$("$PY" - 2>>"$LOG" <<'EOF'
import torch
n = 8192
a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
for _ in range(300):
    torch.matmul(a, b)
torch.cuda.synchronize()
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
s.record()
for _ in range(100):
    c = torch.matmul(a, b)
e.record()
e.synchronize()
print(2 * n**3 / (s.elapsed_time(e) / 100 * 1e-3) / 1e12)
EOF
  )
  printf 'ref_bf16\t%s\t0\t%s\n' "$([ -n "$tf" ] && echo 0 || echo 1)" "$tf" >>"$RUNS"
  echo "ref_bf16     plain torch.matmul loop: ${tf:-failed} TFLOP/s"
}

for i in $(seq 1 "$REPEAT"); do
  skip matmul || run matmul matmul.py
  skip matmul_bf16 || run matmul_bf16 matmul.py --size 8192 --dtype bf16 --iters 1000
  skip ref || ref
done
for i in $(seq 1 "$REPEAT"); do
  skip llm || run llm llm.py
done
if ! skip llm_eager; then
  for i in 1 2; do run llm_eager llm.py --decode-mode eager --warmup 1 --iters 5; done
fi
if ! skip io; then
  tmp=$(mktemp -d)
  mkdir -p "$tmp/data" "$tmp/ckpt"
  for f in 1 2 3 4; do head -c $((64 << 20)) /dev/urandom >"$tmp/data/shard$f.bin"; done
  run io io.py --data "$tmp/data" --ckpt "$tmp/ckpt" --ckpt-mb "$IO_MB" --iters 3
  rm -rf "$tmp"
fi

"$PY" - "$OUT" <<'EOF' | tee "$OUT/table.txt"
import json, os, statistics as st, sys

out = sys.argv[1]
runs = [l.rstrip("\n").split("\t") for l in open(os.path.join(out, "runs.tsv")) if l.strip()]


def processes(name):
    """Split a .jsonl into processes (each begins with a start event)."""
    procs, cur = [], None
    path = os.path.join(out, name + ".jsonl")
    if not os.path.exists(path):
        return procs
    for line in open(path):
        try:
            ev = json.loads(line)
        except ValueError:
            print("NOT JSON in %s: %r" % (name, line[:120]))
            continue
        if ev.get("event") == "start":
            cur = []
            procs.append(cur)
        if cur is not None:
            cur.append(ev)
    return procs


def med(vals):
    vals = [v for v in vals if v is not None]
    return st.median(vals) if vals else None


def cv(vals):
    vals = [v for v in vals if v is not None]
    return 100 * st.stdev(vals) / st.mean(vals) if len(vals) > 1 and st.mean(vals) else None


def f(v, fmt="%.2f"):
    return "-" if v is None else fmt % v


def phases(procs):
    cols = []
    for name in ("interpreter", "imports", "device_init", "first_kernel"):
        cols.append(f(med([e["duration_s"] for p in procs for e in p if e["event"] == "phase" and e["name"] == name]), "%.3f"))
    return "/".join(cols)


def metric_per_proc(procs, metric, fn=med):
    return [fn([e["value"] for e in p if e["event"] == "sample" and e["metric"] == metric]) for p in procs]


def summaries(procs):
    return [next((e for e in p if e["event"] == "summary"), {}) for p in procs]


def errors(procs):
    return ["%s: %s" % (e["type"], e["message"]) for p in procs for e in p if e["event"] == "error"]


print()
print("%-12s %5s %7s  %-31s  %s" % ("variant", "ok/n", "wall_s", "start-up s interp/imp/dev/first", "steady state (median over processes; cv = across processes)"))
for name in ("matmul", "matmul_bf16", "llm", "llm_eager", "io"):
    procs = processes(name)
    rows = [r for r in runs if r[0] == name]
    if not rows:
        continue
    ok = sum(1 for r in rows if r[1] == "0")
    wall = med([float(r[2]) for r in rows])
    sm = summaries(procs)
    if name.startswith("matmul"):
        ms = metric_per_proc(procs, "kernel_ms")
        tf = metric_per_proc(procs, "tflops")
        steady = "kernel %s ms (cv %s%%)  %s TFLOP/s  %s%% of peak  %s J/iter  %s" % (
            f(med(ms), "%.3f"), f(cv(ms), "%.2f"), f(med(tf), "%.1f"),
            f(med([s.get("pct_of_peak") for s in sm]), "%.1f"), f(med([s.get("energy_per_iter_j") for s in sm]), "%.2f"),
            (sm[0].get("device_name") if sm else "") or "")
    elif name.startswith("llm"):
        tpot = metric_per_proc(procs, "tpot_ms")
        tps = metric_per_proc(procs, "tokens_per_s")
        ttft = metric_per_proc(procs, "ttft_ms")
        itl99 = metric_per_proc(procs, "itl_ms", lambda v: sorted(v)[int(0.99 * (len(v) - 1))] if v else None)
        steady = "tpot %s ms (cv %s%%)  %s tok/s (cv %s%%)  ttft %s ms  itl p99 %s ms  %s  tok/J %s" % (
            f(med(tpot), "%.3f"), f(cv(tpot)), f(med(tps), "%.0f"), f(cv(tps)), f(med(ttft), "%.1f"), f(med(itl99), "%.3f"),
            ",".join(sorted({str(s.get("decode_mode")) for s in sm})), f(med([s.get("tokens_per_j") for s in sm]), "%.1f"))
    else:
        parts = []
        for m, short in (("scratch_write_mb_s", "scr-w"), ("scratch_read_mb_s", "scr-r"), ("ckpt_write_mb_s", "ckpt-w"), ("data_read_mb_s", "data-r")):
            parts.append("%s %s" % (short, f(med(metric_per_proc(procs, m)), "%.0f")))
        parts.append("small %s ops/s" % f(med(metric_per_proc(procs, "small_files_ops_s")), "%.0f"))
        cu = [e for p in procs for e in p if e["event"] == "sample" and e["metric"] == "copyup_ms"]
        parts.append("copyup " + " ".join("%s=%sms" % (e["size_class"], f(e["value"], "%.2f")) for e in cu))
        steady = "MB/s " + "  ".join(parts)
    print("%-12s %2d/%-2d %7s  %-31s  %s" % (name, ok, len(rows), f(wall), phases(procs), steady))
    for err in errors(procs):
        print("    error: " + err)
refs = [float(r[3]) for r in runs if r[0] == "ref_bf16" and r[3]]
if refs:
    mine = med(metric_per_proc(processes("matmul_bf16"), "tflops"))
    print("%-12s %2d/%-2d %7s  %-31s  plain loop %s TFLOP/s; matmul.py bf16 8192 = %s%% of it (bar: >= 90%%)" % (
        "ref_bf16", len(refs), len(refs), "-", "-", f(med(refs), "%.1f"), f(100 * mine / med(refs) if mine else None, "%.1f")))
EOF
