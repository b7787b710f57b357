#!/bin/bash
# On the GPU test host, after `source .gpu-host/setup.sh` (or .gpu-lite/setup.sh, node without Docker): unpack Podman
# (packed by scripts/gpu-host/pack-podman.sh), configure it for a host without systemd (cgroupfs, file events,
# overlay storage on the file system with the most room), write a CDI spec for the host's GPUs the way
# `nvidia-ctk cdi generate` does (scripts/gpu-host/cdi-spec.py), and give Podman the image local/gpu-torch:host
# (from the Docker engine when it has it, else imported from the host's root file system as setup.sh builds it).
# Sets PODMAN_ROOT; puts wrappers for podman on PATH.
PODMAN_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PODMAN_ROOT=/opt/gpu-host/podman
if [ ! -x "$PODMAN_ROOT/bin/podman" ]; then
  mkdir -p "$PODMAN_ROOT" && tar -C "$PODMAN_ROOT" -xJf "$PODMAN_HERE/podman.tar.xz"
fi
mkdir -p "$PODMAN_ROOT/wrap" /etc/containers /etc/cdi
# Wrappers: the packed binaries find their libraries, whatever environment the caller passes on (the action gives
# its children an allow-listed environment, which has no LD_LIBRARY_PATH).
for b in podman conmon crun; do
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s/lib exec %s/bin/%s "$@"\n' "$PODMAN_ROOT" "$PODMAN_ROOT" "$b" > "$PODMAN_ROOT/wrap/$b"
  chmod +x "$PODMAN_ROOT/wrap/$b"
done
# Storage and Podman's temporary copies on the file system with the most room: the host image is ~10 GB, and a
# load or an import keeps a temporary copy beside the stored one (the first try: "no space left on device").
PODMAN_BIG=$(df -P / /tmp /var /opt /mnt /workspace "$PWD" 2>/dev/null | awk 'NR>1{print $4, $6}' | sort -rn | head -1 | cut -d' ' -f2)
PODMAN_DATA=${PODMAN_BIG%/}/podman-data
mkdir -p "$PODMAN_DATA/storage" "$PODMAN_DATA/tmp"
export TMPDIR="$PODMAN_DATA/tmp"
echo "podman storage: $PODMAN_DATA ($(df -h --output=avail "$PODMAN_BIG" | tail -1 | tr -d ' ') free)"
cat > /etc/containers/storage.conf <<CONF
[storage]
driver = "overlay"
runroot = "/run/containers/storage"
graphroot = "$PODMAN_DATA/storage"
CONF
# runc where the Docker bundle brought one (the runtime Docker runs on this host); crun refuses containers on
# hosts with hybrid cgroups.
PODMAN_RUNTIME=crun; [ -x /opt/gpu-host/docker/bin/runc ] && PODMAN_RUNTIME=runc
cat > /etc/containers/containers.conf <<CONF
[containers]
seccomp_profile = "$PODMAN_ROOT/share/seccomp.json"
init_path = "$PODMAN_ROOT/bin/catatonit"
[engine]
image_copy_tmp_dir = "$PODMAN_DATA/tmp"
cgroup_manager = "cgroupfs"
events_logger = "file"
conmon_path = ["$PODMAN_ROOT/wrap/conmon"]
runtime = "$PODMAN_RUNTIME"
[engine.runtimes]
crun = ["$PODMAN_ROOT/wrap/crun"]
runc = ["/opt/gpu-host/docker/bin/runc"]
CONF
[ -f /etc/containers/policy.json ] || echo '{"default":[{"type":"insecureAcceptAnything"}]}' > /etc/containers/policy.json
[ -f /etc/containers/registries.conf ] || : > /etc/containers/registries.conf
export PATH="$PODMAN_ROOT/wrap:$PATH"
podman --version
python3 "$PODMAN_HERE/cdi-spec.py" > /etc/cdi/nvidia.json && echo "CDI spec: /etc/cdi/nvidia.json"
PODMAN_IMAGE=${1:-local/gpu-torch:host}
if ! podman image exists "$PODMAN_IMAGE" 2>/dev/null; then
  t0=$(date +%s)
  if command -v docker >/dev/null && docker image inspect "$PODMAN_IMAGE" >/dev/null 2>&1; then
    docker save "$PODMAN_IMAGE" | podman load -q && echo "podman: loaded $PODMAN_IMAGE from Docker in $(( $(date +%s) - t0 ))s"
  else
    # No Docker engine here: the same image as setup.sh builds, imported by Podman itself.
    tar -C / -c --exclude=./proc --exclude=./sys --exclude=./dev --exclude=./run --exclude=./tmp \
        --exclude=./var/lib/docker --exclude=./var/lib/containers --exclude=./usr/local/nvidia --exclude=./mnt \
        --exclude=./opt/gpu-host --exclude=./root --exclude=./home --exclude=./work --exclude="./${PWD#/}" \
        --exclude="./${PODMAN_DATA#/}" --exclude=./usr/local/cuda --exclude=./opt/nvidia --exclude=./usr/share/doc \
        . 2>/dev/null |
      podman import \
        -c "ENV PATH=/opt/torch/.venv/bin:/usr/local/nvidia/bin:/usr/bin:/bin" \
        -c "ENV LD_LIBRARY_PATH=/usr/local/nvidia/lib64" \
        -c "ENV CUDA_VERSION=${CUDA_VERSION:-}" \
        -c "ENV NVIDIA_REQUIRE_CUDA=cuda>=${CUDA_VERSION%.*}" \
        - "$PODMAN_IMAGE" >/dev/null && echo "podman: imported $PODMAN_IMAGE in $(( $(date +%s) - t0 ))s"
  fi
fi
# The lent GPU machines withhold CAP_SYS_RESOURCE. Podman (rootful) writes rlimits into every container's spec
# (RLIMIT_NOFILE 1048576 and RLIMIT_NPROC unless told otherwise; Docker writes none), and runc's container init then
# fails: "error setting rlimit type 7 / 6: operation not permitted" (2026-12-06, also with default_ulimits at the
# host's own hard limits and with --ulimit host). Where a first container fails that way, Podman gets a runtime
# wrapper that drops process.rlimits from the bundle's config.json before runc creates the container: the container
# keeps the engine's own limits, as under Docker. A property of this sandbox, not of the tool; said in the evidence.
if ! PODMAN_PROBE=$(podman run --rm --network none "$PODMAN_IMAGE" true 2>&1) && grep -q 'setting rlimit' <<<"$PODMAN_PROBE"; then
  PODMAN_PY=$(command -v python3)
  PODMAN_RUNC=/opt/gpu-host/docker/bin/runc; [ -x "$PODMAN_RUNC" ] || PODMAN_RUNC=$(command -v runc)
  cat > "$PODMAN_ROOT/wrap/runc-host-limits" <<WRAP
#!$PODMAN_PY
import json, os, sys
args = sys.argv[1:]
verb = next((a for a in args if a in ('create', 'run')), None)
if verb:
    rest = args[args.index(verb) + 1:]
    bundle = os.getcwd()
    for i, a in enumerate(rest):
        if a in ('--bundle', '-b') and i + 1 < len(rest):
            bundle = rest[i + 1]
        elif a.startswith('--bundle='):
            bundle = a.split('=', 1)[1]
    path = os.path.join(bundle, 'config.json')
    with open(path) as f:
        spec = json.load(f)
    if spec.get('process', {}).pop('rlimits', None) is not None:
        with open(path, 'w') as f:
            json.dump(spec, f)
os.execv('$PODMAN_RUNC', ['runc'] + args)
WRAP
  chmod +x "$PODMAN_ROOT/wrap/runc-host-limits"
  sed -i -e 's/^runtime = .*/runtime = "runc-host-limits"/' \
    -e "/^\[engine.runtimes\]/a runc-host-limits = [\"$PODMAN_ROOT/wrap/runc-host-limits\"]" /etc/containers/containers.conf
  echo "podman: runc cannot set rlimits here (${PODMAN_PROBE##*: error during container init: }); runtime runc-host-limits drops them"
  podman run --rm --network none "$PODMAN_IMAGE" true && echo "podman: a container starts with runc-host-limits"
fi
export PODMAN_ROOT
