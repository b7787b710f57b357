#!/usr/bin/env bash
# What was run on the lent GPU machine to check the GPU paths of workloads/ (from the repo root).
# Writes to $OUT: check.log (all of it) and smoke.tar.gz (gpu_smoke.sh's JSON lines and table).
set -u
OUT=${OUT:-/tmp/device-check}
mkdir -p "$OUT"
export PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
exec > >(tee "$OUT/check.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,memory.total,persistence_mode --format=csv
python3 -c 'import torch, sys; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda)'

echo "== unit tests: workloads under the torch python (CPU paths through torch, graph tests on the GPU)"
GPU_OVERHEAD_TEST_PYTHON=$(command -v python3) python3 -m unittest discover -s workloads/tests -t . -v 2>&1 |
  grep -E "test_llm_torch|FAIL|ERROR|Error|^Ran|^OK"
echo "== unit tests: workloads under /usr/bin/python3 (no torch)"
python3 -m unittest discover -s workloads/tests -t . 2>&1 | grep -E "FAIL|ERROR|Error|^Ran|^OK"
echo "== error paths: no visible GPU (expect no_gpu, exit 2), too large (expect oom, exit 1)"
CUDA_VISIBLE_DEVICES= python3 workloads/matmul.py 2>/dev/null | tail -1; echo "exit ${PIPESTATUS[0]}"
python3 workloads/matmul.py --size 300000 2>/dev/null | tail -1; echo "exit ${PIPESTATUS[0]}"

summary() { python3 -c '
import json, sys
for line in sys.stdin:
    e = json.loads(line)
    if e["event"] in ("summary", "error", "env"):
        keep = {k: v for k, v in e.items() if k not in ("configs", "copyup", "platform", "python_executable")}
        print(json.dumps(keep)[:1500])
'; }

echo "== matmul cupy backend"
python3 workloads/matmul.py --backend cupy --size 8192 --dtype fp16 --iters 1000 2>/dev/null | summary
echo "== matmul tf32"
python3 workloads/matmul.py --dtype tf32 --iters 20 2>/dev/null | summary
echo "== llm, two batch sizes"
python3 workloads/llm.py --batch-sizes 1,8 --output-lens 16 --iters 3 --warmup 1 2>/dev/null | summary
echo "== llm --model-path (a tiny random Llama saved locally)"
python3 - <<'PY' 2>/dev/null
from transformers import LlamaConfig, LlamaForCausalLM
cfg = LlamaConfig(hidden_size=256, intermediate_size=512, num_hidden_layers=2, num_attention_heads=4,
                  num_key_value_heads=2, vocab_size=1000)
LlamaForCausalLM(cfg).save_pretrained("/tmp/hf-tiny")
PY
python3 workloads/llm.py --model-path /tmp/hf-tiny --iters 2 --warmup 1 --prompt-lens 32 --output-lens 8 2>/dev/null | summary
echo "== llm 8b preset, graph"
python3 workloads/llm.py --preset 8b --iters 5 2>/dev/null | summary

echo "== gpu_smoke.sh"
SMOKE=/tmp/smoke
OUT=$SMOKE REPEAT=${REPEAT:-3} IO_MB=${IO_MB:-1024} bash workloads/gpu_smoke.sh python3
tar -C "$SMOKE" -czf "$OUT/smoke.tar.gz" .
