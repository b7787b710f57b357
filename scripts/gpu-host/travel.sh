#!/bin/bash
# The tree that travels to the GPU host is limited to 64 MiB with .gpu-host (~62 MB) carried: move what the host
# does not need (evidence, tests, sources that dist/ bundles) into .away/ (git-ignored) and back.
# Usage, from the repo root: travel.sh away | back
set -euo pipefail
grep -qx '/.away/' .git/info/exclude || echo '/.away/' >> .git/info/exclude
PATHS=(docs test src dist/cli.js dist/licenses.txt package-lock.json)
case ${1:?away|back} in
  away) mkdir -p .away; for p in "${PATHS[@]}"; do [ -e "$p" ] && mkdir -p ".away/$(dirname "$p")" && mv "$p" ".away/$p"; done ;;
  back) for p in "${PATHS[@]}"; do [ -e ".away/$p" ] && mv ".away/$p" "$p"; done; rm -rf .away ;;
esac
