#!/usr/bin/env bash
# Runs the three workloads (CPU paths) natively and in a container, as the action will: workloads/
# mounted read-only at /gpu-overhead/workloads, --network none, dataset read-only and checkpoint
# folder as bind mounts. Needs Docker and Debian's python3 + numpy; pulls nothing: the image is a
# minimal root file system (this machine's python3, numpy, their libraries, and three files of
# 1, 16 and 128 MiB for the copy-up probe) made with `docker import`.
# Usage, from the repo root:  docs/evidence/workloads/container_check.sh [OUTDIR]
set -euo pipefail
OUT=${1:-docs/evidence/workloads/container-cpu}
IMAGE=gpu-overhead-workloads-test:local
mkdir -p "$OUT"
if ! docker image inspect "$IMAGE" >/dev/null 2>&1; then
  root=$(mktemp -d)
  {
    printf '%s\n' /usr/bin/python3 /usr/bin/python3.11 /usr/lib/python3.11 \
      /usr/lib/python3/dist-packages/numpy /etc/passwd /etc/group /etc/alternatives \
      /etc/ld.so.cache /usr/bin/dash /usr/bin/sh
    for so in /usr/bin/python3.11 $(find /usr/lib/python3.11/lib-dynload /usr/lib/python3/dist-packages/numpy -name '*.so'); do
      ldd "$so" | awk '/=>/ {print $3} /ld-linux/ {print $1}'
    done | sort -u | while read -r lib; do
      # every link of the chain (Debian's alternatives: lib -> /etc/alternatives/... -> ...)
      while [ -L "$lib" ]; do
        echo "$lib"
        t=$(readlink "$lib")
        case $t in /*) lib=$t ;; *) lib=$(dirname "$lib")/$t ;; esac
      done
      echo "$lib"
    done
    echo /usr/lib64/ld-linux-x86-64.so.2
  } | sed 's|^/lib/|/usr/lib/|; s|^/lib64/|/usr/lib64/|; s|^/||' | sort -u >"$root.list"
  tar -C / -cf - -T "$root.list" | tar -C "$root" -xf -
  rm -f "$root.list"
  for l in bin lib lib64; do ln -s "usr/$l" "$root/$l"; done
  mkdir -p "$root/tmp" "$root/var/tmp" "$root/usr/lib/big"
  chmod 1777 "$root/tmp" "$root/var/tmp"
  for mb in 1 16 128; do head -c $((mb << 20)) /dev/urandom >"$root/usr/lib/big/file$mb.bin"; done
  tar -C "$root" -cf - . | docker import -c 'ENV PATH=/usr/bin:/bin' - "$IMAGE" >/dev/null
  rm -rf "$root"
fi
data=$(mktemp -d)
ckpt=$(mktemp -d)
for i in 1 2; do head -c $((16 << 20)) /dev/urandom >"$data/shard$i.bin"; done
run_native() { python3 "workloads/$1" "${@:2}"; }
run_ctr() {
  docker run --rm --network none -v "$PWD/workloads:/gpu-overhead/workloads:ro" \
    -v "$data:/data:ro" -v "$ckpt:/ckpt" "$IMAGE" python3 "/gpu-overhead/workloads/$1" "${@:2}"
}
for arm in native container; do
  if [ $arm = native ]; then r=run_native d=$data c=$ckpt; else r=run_ctr d=/data c=/ckpt; fi
  $r matmul.py --device cpu --iters 20 >"$OUT/matmul-$arm.jsonl"
  $r llm.py --device cpu --iters 5 >"$OUT/llm-$arm.jsonl"
  $r io.py --device cpu --data "$d" --ckpt "$c" --ckpt-mb 64 --iters 3 --copyup-sizes-mb 1,16,128 \
    >"$OUT/io-$arm.jsonl"
done
rm -rf "$data" "$ckpt"
