#!/bin/bash
# GPU host (4 GPUs), issue 26's evidence, through the action entry as the Actions runner runs it:
#  A. the default check with every action.yml default (gpus: all -> one lane per GPU, io included);
#  B. the default check against an NGC-like image (entrypoint banner on stdout, warnings on stderr,
#     entrypoint.d, NGC's ENV, WORKDIR) built FROM the host image, on one GPU, launched as NGC asks.
# Run from the repo root after: source .gpu-host/setup.sh   Everything lands in $OUT/e2e-field.tgz.
set -u
R=/tmp/evidence-field; rm -rf "$R"; mkdir -p "$R"
BASE_IMG=local/gpu-torch:host
NGC_IMG=local/ngc-like:host
nvidia-smi > "$R/nvidia-smi.txt" 2>&1
nvidia-smi -L > "$R/nvidia-smi-L.txt" 2>&1
docker build -q --build-arg BASE=$BASE_IMG -t $NGC_IMG test/__fixtures__/images/ngc-like > "$R/ngc-build.txt" 2>&1
docker run --rm $GPU_DOCKER_ARGS --network none $NGC_IMG python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.device_count())' > "$R/ngc-smoke.txt" 2>&1
action() { # name, then INPUT_ assignments
  local name=$1; shift
  local ws=/tmp/ws-$name; rm -rf "$ws"; mkdir -p "$ws"
  : > "$R/$name-github_output"; : > "$R/$name-step_summary.md"
  local t0; t0=$(date +%s.%N)
  ( cd "$ws" && env GITHUB_WORKSPACE="$ws" GITHUB_OUTPUT="$R/$name-github_output" \
      GITHUB_STEP_SUMMARY="$R/$name-step_summary.md" RUNNER_TEMP=/tmp "INPUT_GPU-ACCESS=devices" \
      "INPUT_COMMENT=never" "$@" timeout -s INT 420 node "$OLDPWD/dist/index.js" ) > "$R/$name-action.log" 2>&1
  echo "$name exit=$? wall_s=$(python3 -c "print(round($(date +%s.%N) - $t0, 1))")" | tee -a "$R/exits.txt"
  cp -r "$ws/gpu-overhead-results" "$R/$name" 2>/dev/null || cp -r "$ws"/* "$R/$name" 2>/dev/null
  rm -rf "$R/$name/io"
}
# A: every input at its default except the image and the GPU access this host needs (no Container Toolkit).
action all-gpus "INPUT_IMAGE=$BASE_IMG"
# B: the NGC-like image on one GPU, with NGC's launch flags.
action ngc-like "INPUT_IMAGE=$NGC_IMG" "INPUT_GPUS=0" \
  "INPUT_CONTAINER-ARGS=--ipc=host --ulimit memlock=-1 --ulimit stack=67108864"
tar -C /tmp -czf "$OUT/e2e-field.tgz" evidence-field
ls -la "$OUT"
