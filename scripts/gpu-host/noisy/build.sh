#!/bin/bash
# Builds local/gpu-torch:noisy-<duty> images FROM local/gpu-torch:host (offline, local base).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
for duty in "$@"; do
  ctx=$(mktemp -d)
  cp "$HERE/noisy.py" "$HERE/entry.sh" "$ctx/"
  cat > "$ctx/Dockerfile" <<DOCKER
FROM local/gpu-torch:host
COPY noisy.py entry.sh /opt/noisy/
ENV NOISY_DUTY=$duty
ENTRYPOINT ["/bin/sh", "/opt/noisy/entry.sh"]
DOCKER
  tag="local/gpu-torch:noisy-${duty/./p}"
  docker build -q -t "$tag" "$ctx" >/dev/null && echo "built $tag"
  rm -rf "$ctx"
done
