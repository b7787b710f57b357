#!/bin/bash
# GPU host, Podman call (issue 54): after `source .gpu-host/setup.sh` and `source .gpu-podman/setup-podman.sh`
# (scripts/gpu-host/pack-podman.sh packs Podman here; setup-podman.sh writes /etc/cdi/nvidia.json there):
#   1. podman-cdi: the default check through the action entry with every default, on Podman, the GPU given by CDI
#      (container-runtime: podman, gpu-access: cdi);
#   2. docker-vs-podman: one image on Docker against the same image on Podman (arms: docker:<ref>,podman:<ref>),
#      the GPU given by device nodes and the driver mount on both (Docker 20.10 here takes no CDI devices).
# E2E_PARTS: which of the two to run (default "podman-cdi docker-vs-podman"; one per call keeps a call under 10 min).
# Small results land in $OUT/e2e-podman.tgz. Run from the repo root.
set -u
REPO=$PWD
R=/tmp/e2e-podman; mkdir -p "$R"
PARTS=${E2E_PARTS:-podman-cdi docker-vs-podman}
IMG=local/gpu-torch:host
source scripts/gpu-host/action-lib.sh
{ podman --version; docker version --format 'docker {{.Server.Version}}'; nvidia-smi -L; } > "$R/versions.txt" 2>&1
cp /etc/cdi/nvidia.json "$R/cdi-nvidia.json"
# CDI by itself: the GPU is visible in a Podman container given only --device nvidia.com/gpu=all.
podman run --rm --network none --device nvidia.com/gpu=all "$IMG" nvidia-smi -L > "$R/podman-cdi-nvidia-smi.txt" 2>&1
echo "exit=$?" >> "$R/podman-cdi-nvidia-smi.txt"
case " $PARTS " in *" podman-cdi "*) action podman-cdi "$IMG" all "INPUT_CONTAINER-RUNTIME=podman" "INPUT_GPU-ACCESS=cdi" ;; esac
case " $PARTS " in *" docker-vs-podman "*) action docker-vs-podman "$IMG" all "INPUT_ARMS=docker:$IMG,podman:$IMG" ;; esac
for n in $PARTS; do
  [ -f "$R/$n/report.md" ] && cp "$R/$n/report.md" "$R/$n-report.md"
  [ -f "$R/$n/summary.json" ] && cp "$R/$n/summary.json" "$R/$n-summary.json"
done
tar -C /tmp -czf "$OUT/e2e-podman.tgz" e2e-podman
cat "$R/exits.txt"
