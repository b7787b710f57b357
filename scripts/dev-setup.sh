#!/usr/bin/env bash
# Installs what the tests need on a Debian machine (13, or 12 with Node 20.19+ already installed) and starts a
# Docker engine when none answers. README's test command and .ci/run both run it:
#
#   scripts/dev-setup.sh && npm ci && npm test                   # everything (about 1.7 GB of packages)
#   scripts/dev-setup.sh --unit && npm ci && npm run test:unit   # the fast lane: Node, npm, NumPy
#
# Which package serves which test: docs/development.md, "Test prerequisites". Runs apt-get as root (through sudo
# when not root). A Docker engine already installed (e.g. Docker CE, GitHub's runners) is kept.
set -euo pipefail
lane=all
for a in "$@"; do
  case "$a" in
    --unit) lane=unit ;;
    -h | --help)
      sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "dev-setup.sh: unknown argument $a (allowed: --unit)" >&2
      exit 2
      ;;
  esac
done
as_root=()
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null || {
    echo 'dev-setup.sh: run as root (apt-get install needs it), or install sudo' >&2
    exit 2
  }
  as_root=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive

# The unit lane: lint, type check, the Python workloads' tests and every Jest test of the `unit` project; git for
# the release tests (test/package/release.test.ts) and the docs check (scripts/check-docs.mjs).
pkgs="python3 python3-numpy ca-certificates git"
# Node from Debian only where none is installed (a Node 24 from nodejs.org or NodeSource is kept).
command -v node >/dev/null || pkgs="$pkgs nodejs"
command -v npm >/dev/null || pkgs="$pkgs npm"
if [ "$lane" = all ]; then
  # The integration lane (docs/development.md, "Test prerequisites"):
  # podman + uidmap (rootless) + catatonit (podman's --init binary, only recommended by podman): the Podman
  # end-to-end test. libopenblas0-pthread (+ libblas3, liblapack3): the test image with the other BLAS than the
  # host's NumPy (test/integration/why-blas.test.ts). hyperfine, python3-pytest-benchmark: the own-workload
  # examples, natively and copied into the test image. util-linux (unshare): the second-engine test.
  pkgs="$pkgs libopenblas0-pthread libblas3 liblapack3 podman uidmap catatonit hyperfine python3-pytest-benchmark util-linux"
  # A host with a Docker engine keeps it; elsewhere Debian's docker.io.
  command -v dockerd >/dev/null || pkgs="$pkgs docker.io"
fi
"${as_root[@]}" apt-get update -qq
# Debian 13 ships Docker's client apart from the engine: docker-cli, only recommended by docker.io (and this script
# installs no recommends). Debian 12's docker.io holds the client and has no such package.
if [ "$lane" = all ] && ! command -v docker >/dev/null && apt-cache show docker-cli >/dev/null 2>&1; then
  pkgs="$pkgs docker-cli"
fi
# Installing libopenblas0-pthread makes OpenBLAS the system BLAS (Debian's alternatives). The tests work with
# either, but this script leaves the choice as it was: the unit lane's packages first (python3-numpy brings the
# reference BLAS on a fresh machine), the alternatives noted, the rest installed, the alternatives set back.
blas_alternatives() {
  for lib in blas lapack; do
    update-alternatives --query "lib$lib.so.3-x86_64-linux-gnu" 2>/dev/null | sed -n "s/^Value: /lib$lib /p"
  done
}
unit_pkgs=${pkgs%% libopenblas0-pthread*}
# shellcheck disable=SC2086
"${as_root[@]}" apt-get install -y -qq --no-install-recommends $unit_pkgs >/dev/null
before=$(blas_alternatives)
# shellcheck disable=SC2086
"${as_root[@]}" apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
while read -r lib path; do
  [ -n "$path" ] && "${as_root[@]}" update-alternatives --set "$lib.so.3-x86_64-linux-gnu" "$path" >/dev/null
done <<<"$before"
echo "dev-setup.sh: installed the $lane lane's packages"

node_ok=$(node -e 'const [a, b] = process.versions.node.split(".").map(Number); console.log(a > 20 || (a === 20 && b >= 19))')
if [ "$node_ok" != true ]; then
  echo "dev-setup.sh: Node $(node --version) is too old, 20.19 or newer is needed: install Node 24 from https://nodejs.org/en/download (or NodeSource's nodejs_24.x)" >&2
  exit 2
fi
[ "$lane" = unit ] && exit 0

# A Docker engine that answers: started when installed and stopped (systemd's unit where systemd runs,
# else dockerd in the background, as in a container, which has no systemd).
if ! "${as_root[@]}" docker version >/dev/null 2>&1; then
  if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
    "${as_root[@]}" systemctl start docker || true
  fi
  if ! "${as_root[@]}" docker version >/dev/null 2>&1; then
    log=/var/log/gpu-overhead-dockerd.log
    "${as_root[@]}" sh -c "setsid dockerd >$log 2>&1 < /dev/null &"
    for _ in $(seq 1 60); do
      "${as_root[@]}" docker version >/dev/null 2>&1 && break
      sleep 1
    done
  fi
  if ! "${as_root[@]}" docker version >/dev/null 2>&1; then
    echo "dev-setup.sh: the Docker engine did not start; its log (${log:-journalctl -u docker}):" >&2
    [ -n "${log:-}" ] && "${as_root[@]}" tail -20 "$log" >&2
    exit 1
  fi
fi
echo "dev-setup.sh: $("${as_root[@]}" docker version --format 'Docker engine {{.Server.Version}}') answers"
