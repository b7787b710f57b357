#!/bin/bash
# Builds co-tenant images FROM local/gpu-torch:host (offline, local base).
# Usage: build.sh TAG:DUTY:PERIOD_MS ...   e.g. build.sh noisy-p30:0.01:30  →  local/gpu-torch:noisy-p30
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
for spec in "$@"; do
  IFS=: read -r name duty period <<<"$spec"
  ctx=$(mktemp -d)
  cp "$HERE/noisy.py" "$HERE/entry.sh" "$ctx/"
  cat > "$ctx/Dockerfile" <<DOCKER
FROM local/gpu-torch:host
COPY noisy.py entry.sh /opt/noisy/
ENV NOISY_DUTY=$duty NOISY_PERIOD_MS=$period
ENTRYPOINT ["/bin/sh", "/opt/noisy/entry.sh"]
DOCKER
  docker build -q -t "local/gpu-torch:$name" "$ctx" >/dev/null && echo "built local/gpu-torch:$name (duty $duty, period $period ms)"
  rm -rf "$ctx"
done
