#!/bin/bash
# Builds stall images FROM local/gpu-torch:host (offline, local base): the entrypoint pauses the workload briefly.
# Usage: build.sh TAG:STALL_S:PERIOD_S ...   e.g. build.sh stall-25ms:0.025:2  →  local/gpu-torch:stall-25ms
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
for spec in "$@"; do
  IFS=: read -r name stall period <<<"$spec"
  ctx=$(mktemp -d)
  cp "$HERE/entry.sh" "$ctx/"
  cat > "$ctx/Dockerfile" <<DOCKER
FROM local/gpu-torch:host
COPY entry.sh /opt/stall/
ENV STALL_S=$stall STALL_PERIOD_S=$period
ENTRYPOINT ["/bin/sh", "/opt/stall/entry.sh"]
DOCKER
  docker build -q -t "local/gpu-torch:$name" "$ctx" >/dev/null && echo "built local/gpu-torch:$name (stall $stall s every $period s)"
  rm -rf "$ctx"
done
