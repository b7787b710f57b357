#!/bin/bash
# Build small local images that carry the image configuration (ENV) of real NVIDIA images, with
# `docker import` (nothing can be pulled here), and optionally record `docker image inspect` of each
# into test/__fixtures__/docker/. Idempotent: an image that exists is not rebuilt.
#
# Usage (from the repository root):
#   test/__fixtures__/images/build-cuda-style-images.sh            # build only
#   test/__fixtures__/images/build-cuda-style-images.sh --record   # build, then record inspect JSON
#
# Where the ENV values come from (copied verbatim, see test/__fixtures__/docker/README.md):
# - local/nvidia-cuda-style:12.4.1-base-ubuntu22.04: nvidia/cuda:12.4.1-base-ubuntu22.04, from NVIDIA's
#   Dockerfile dist/12.4.1/ubuntu2204/base/Dockerfile (gitlab.com/nvidia/container-images/cuda), x86_64 branch.
# - local/ngc-style-pytorch:23.10-py3: the environment of nvcr.io/nvidia/pytorch:23.10-py3 as printed inside
#   that container (vLLM collect_env output published with an H100 benchmark), CUDA/NVIDIA/driver variables.
# - local/ngc-style-pytorch:25.01-py3: only the two values published for nvcr.io/nvidia/pytorch:25.01-py3
#   (CUDA_DRIVER_VERSION=570.86.10, CUDA_VERSION=12.8.0.038) plus the variables every NGC framework image sets.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT="$HERE/../docker"
RUNTIME=${RUNTIME:-docker}
# Test files build these in parallel: one builder at a time, the others wait and find the images there.
exec 9>"${TMPDIR:-/tmp}/gpu-overhead-cuda-style-images.lock"
flock 9

rootfs_tar() {
  # A tiny root filesystem: the content does not matter for image inspect, only the config does.
  local dir tar
  dir=$(mktemp -d)
  mkdir -p "$dir/usr/local/cuda/compat/lib" "$dir/etc"
  printf 'synthetic test image built by %s; only its configuration mirrors %s\n' \
    "test/__fixtures__/images/build-cuda-style-images.sh" "$1" > "$dir/etc/gpu-overhead-test-image"
  tar=$(mktemp --suffix=.tar)
  tar -C "$dir" -cf "$tar" .
  rm -rf "$dir"
  echo "$tar"
}

build() {
  local tag=$1 mirrors=$2; shift 2
  if "$RUNTIME" image inspect "$tag" >/dev/null 2>&1; then return 0; fi
  local changes=() kv tar
  for kv in "$@"; do changes+=(-c "ENV $kv"); done
  tar=$(rootfs_tar "$mirrors")
  "$RUNTIME" import "${changes[@]}" "$tar" "$tag" >/dev/null
  rm -f "$tar"
  echo "built $tag" >&2
}

REQ_12_4='cuda>=12.4 brand=tesla,driver>=470,driver<471 brand=unknown,driver>=470,driver<471 brand=nvidia,driver>=470,driver<471 brand=nvidiartx,driver>=470,driver<471 brand=geforce,driver>=470,driver<471 brand=geforcertx,driver>=470,driver<471 brand=quadro,driver>=470,driver<471 brand=quadrortx,driver>=470,driver<471 brand=titan,driver>=470,driver<471 brand=titanrtx,driver>=470,driver<471 brand=tesla,driver>=525,driver<526 brand=unknown,driver>=525,driver<526 brand=nvidia,driver>=525,driver<526 brand=nvidiartx,driver>=525,driver<526 brand=geforce,driver>=525,driver<526 brand=geforcertx,driver>=525,driver<526 brand=quadro,driver>=525,driver<526 brand=quadrortx,driver>=525,driver<526 brand=titan,driver>=525,driver<526 brand=titanrtx,driver>=525,driver<526 brand=tesla,driver>=535,driver<536 brand=unknown,driver>=535,driver<536 brand=nvidia,driver>=535,driver<536 brand=nvidiartx,driver>=535,driver<536 brand=geforce,driver>=535,driver<536 brand=geforcertx,driver>=535,driver<536 brand=quadro,driver>=535,driver<536 brand=quadrortx,driver>=535,driver<536 brand=titan,driver>=535,driver<536 brand=titanrtx,driver>=535,driver<536'

CUDA_TAG=local/nvidia-cuda-style:12.4.1-base-ubuntu22.04
build "$CUDA_TAG" nvidia/cuda:12.4.1-base-ubuntu22.04 \
  'PATH=/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  'NVARCH=x86_64' \
  "NVIDIA_REQUIRE_CUDA=\"$REQ_12_4\"" \
  'NV_CUDA_CUDART_VERSION=12.4.127-1' \
  'NV_CUDA_COMPAT_PACKAGE=cuda-compat-12-4' \
  'CUDA_VERSION=12.4.1' \
  'LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64' \
  'NVIDIA_VISIBLE_DEVICES=all' \
  'NVIDIA_DRIVER_CAPABILITIES=compute,utility'

NGC_TAG=local/ngc-style-pytorch:23.10-py3
build "$NGC_TAG" nvcr.io/nvidia/pytorch:23.10-py3 \
  'NVIDIA_VISIBLE_DEVICES=all' \
  'CUBLAS_VERSION=12.2.5.6' \
  'NVIDIA_REQUIRE_CUDA=cuda>=9.0' \
  'CUDA_CACHE_DISABLE=1' \
  'TORCH_CUDA_ARCH_LIST="5.2 6.0 6.1 7.0 7.2 7.5 8.0 8.6 8.7 9.0+PTX"' \
  'NCCL_VERSION=2.19.3' \
  'NVIDIA_DRIVER_CAPABILITIES=compute,utility,video' \
  'NVIDIA_PRODUCT_NAME=PyTorch' \
  'CUDA_VERSION=12.2.2.009' \
  'PYTORCH_VERSION=2.1.0a0+32f93b1' \
  'PYTORCH_BUILD_NUMBER=0' \
  'CUDNN_VERSION=8.9.5.29' \
  'PYTORCH_HOME=/opt/pytorch/pytorch' \
  'LD_LIBRARY_PATH=/usr/local/lib/python3.10/dist-packages/cv2/../../lib64:/usr/local/lib/python3.10/dist-packages/torch/lib:/usr/local/lib/python3.10/dist-packages/torch_tensorrt/lib:/usr/local/cuda/compat/lib:/usr/local/nvidia/lib:/usr/local/nvidia/lib64' \
  'NVIDIA_BUILD_ID=71422337' \
  'CUDA_DRIVER_VERSION=535.104.05' \
  'PYTORCH_BUILD_VERSION=2.1.0a0+32f93b1' \
  'CUDA_HOME=/usr/local/cuda' \
  'CUDA_MODULE_LOADING=LAZY' \
  'NVIDIA_PYTORCH_VERSION=23.10' \
  'TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1'

NGC25_TAG=local/ngc-style-pytorch:25.01-py3
build "$NGC25_TAG" nvcr.io/nvidia/pytorch:25.01-py3 \
  'NVIDIA_REQUIRE_CUDA=cuda>=9.0' \
  'NVIDIA_PRODUCT_NAME=PyTorch' \
  'CUDA_VERSION=12.8.0.038' \
  'CUDA_DRIVER_VERSION=570.86.10' \
  'NVIDIA_PYTORCH_VERSION=25.01'

if [ "${1:-}" = "--record" ]; then
  mkdir -p "$OUT"
  record() {
    local tag=$1 name=$2
    set +e
    "$RUNTIME" image inspect "$tag" > "$OUT/$name" 2> "$OUT/$name.stderr"
    local rc=$?
    set -e
    printf '$ %s image inspect %s\nrc=%s\n' "$RUNTIME" "$tag" "$rc" > "$OUT/$name.cmd"
  }
  record "$CUDA_TAG" image-inspect-nvidia-cuda-style-12.4.1.json
  record "$NGC_TAG" image-inspect-ngc-style-pytorch-23.10.json
  record "$NGC25_TAG" image-inspect-ngc-style-pytorch-25.01.json
  record local/gpu-overhead-test:absent image-inspect-absent.json
  set +e
  "$RUNTIME" pull nvcr.io/nvidia/pytorch:25.01-py3 > "$OUT/pull-offline.txt" 2> "$OUT/pull-offline.txt.stderr"
  printf '$ %s pull nvcr.io/nvidia/pytorch:25.01-py3\nrc=%s\n' "$RUNTIME" "$?" > "$OUT/pull-offline.txt.cmd"
  set -e
  "$RUNTIME" version > "$OUT/docker-version.txt" 2>&1 || true
fi

# Container-side mountinfo from the local engine (needs the python test image that
# test/helpers/docker-image.ts builds: local/gpu-overhead-test:py).
if [ "${1:-}" = "--record" ] && "$RUNTIME" image inspect local/gpu-overhead-test:py >/dev/null 2>&1; then
  data=$(mktemp -d)
  "$RUNTIME" volume create gpu-overhead-test-vol >/dev/null
  cmd=("$RUNTIME" run --rm --network none -v "$data:/data:ro" -v "$data:/ckpt" --tmpfs /scratch
       -v gpu-overhead-test-vol:/vol local/gpu-overhead-test:py cat /proc/self/mountinfo)
  set +e
  "${cmd[@]}" > "$OUT/container-mountinfo-local.txt" 2> "$OUT/container-mountinfo-local.txt.stderr"
  printf '$ %s\nrc=%s\n' "${cmd[*]}" "$?" > "$OUT/container-mountinfo-local.txt.cmd"
  set -e
  "$RUNTIME" volume rm gpu-overhead-test-vol >/dev/null
  rmdir "$data"
fi
