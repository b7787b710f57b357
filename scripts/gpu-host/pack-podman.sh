#!/bin/bash
# Pack Podman (with conmon, crun, catatonit and the libraries they need beyond glibc) for a bare GPU test host,
# as ../shared/gpu-host/pack.sh packs Docker. Run here, from the project root, where Debian's podman is installed:
#   scripts/gpu-host/pack-podman.sh [DEST]        (default .gpu-podman, git-ignored through .git/info/exclude)
# There, after `source .gpu-host/setup.sh` (which starts Docker and builds local/gpu-torch:host):
#   source .gpu-podman/setup-podman.sh            (podman on PATH, a CDI spec in /etc/cdi, the image loaded)
set -euo pipefail
DEST=${1:-.gpu-podman}
HERE=$(cd "$(dirname "$0")" && pwd)
for b in podman conmon crun catatonit; do
  command -v "$b" >/dev/null || { echo "pack-podman.sh: $b not found; run: apt-get install -y podman crun catatonit" >&2; exit 1; }
done
mkdir -p "$DEST"
if git rev-parse --git-dir >/dev/null 2>&1; then
  EXC="$(git rev-parse --git-dir)/info/exclude"; mkdir -p "$(dirname "$EXC")"
  grep -qx "/$DEST/" "$EXC" 2>/dev/null || echo "/$DEST/" >> "$EXC"
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/lib" "$tmp/share"
for b in podman conmon crun catatonit; do cp "$(readlink -f "$(command -v "$b")")" "$tmp/bin/$b"; done
# Every shared library the binaries load, except glibc's own (the host's glibc must be at least this one's).
for b in "$tmp"/bin/*; do
  { ldd "$b" 2>/dev/null || true; } | awk '/=> \//{print $3}'
done | sort -u | while read -r l; do
  case "$(basename "$l")" in libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*) continue ;; esac
  cp -L "$l" "$tmp/lib/"
done
cp /usr/share/containers/seccomp.json "$tmp/share/"
podman --version > "$tmp/VERSION"
tar -C "$tmp" -cf - . | xz -T0 -9 > "$DEST/podman.tar.xz"
cp "$HERE/setup-podman.sh" "$HERE/cdi-spec.py" "$DEST/"
du -ch "$DEST"/*
