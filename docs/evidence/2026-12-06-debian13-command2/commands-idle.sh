#!/usr/bin/env bash
# README's two commands, verbatim, each in its own fresh Debian 13 container (debootstrap --variant=minbase trixie,
# docker import), /tmp a tmpfs as on a stock Debian 13, the host's 2 CPUs (no --cpus quota: a fresh machine has none). Command 2 starts a Docker engine inside (dev-setup.sh):
# every capability but SYS_RESOURCE (this sandbox withholds it, so not --privileged), unconfined seccomp/AppArmor.
# The sandbox's TLS-intercepting egress proxy: its CA is copied in and given to Node (NODE_EXTRA_CA_CERTS), nothing else.
set -u
ca=/usr/local/share/ca-certificates/sandboxing-egress-ca.crt
start_box() { # name, extra docker args...
  local name=$1; shift
  docker rm -f "$name" >/dev/null 2>&1
  docker run -d --name "$name" --memory 12g --tmpfs /tmp:rw,exec,nosuid,nodev,size=8g,mode=1777 "$@" \
    ship-debian13:base sleep infinity >/dev/null
  docker exec "$name" mkdir -p /usr/local/share/ca-certificates
  docker cp "$ca" "$name:$ca"
  docker cp src "$name:/root/gpu-overhead-action"
  docker exec "$name" sh -c 'head -2 /etc/os-release; echo "/tmp: $(findmnt -n -o SOURCE,FSTYPE /tmp)"; echo "cpus: $(nproc)"'
}
echo "commit $(git -C src rev-parse HEAD)"
if [ -z "${SKIP_C1:-}" ]; then
echo "== command 1: start $(date -u +%FT%TZ); host load: $(cat /proc/loadavg)"
start_box ship-deb13-c1
docker exec -e NODE_EXTRA_CA_CERTS=$ca -w /root/gpu-overhead-action ship-deb13-c1 bash -c '
  t0=$(date +%s)
  apt-get update && apt-get install -y nodejs python3-numpy && node dist/cli.js run --device cpu --arms native,native --workloads matmul,io --runs 4 --out out
  rc=$?; echo "== command 1: exit $rc in $(( $(date +%s) - t0 )) s"; exit $rc'
echo "== command 1 end $(date -u +%FT%TZ); host load: $(cat /proc/loadavg)"
docker rm -f ship-deb13-c1 >/dev/null; fi
docker volume rm -f ship-deb13-docker >/dev/null 2>&1; docker volume create ship-deb13-docker >/dev/null
echo "== command 2: start $(date -u +%FT%TZ); host load: $(cat /proc/loadavg)"
start_box ship-deb13 --cap-add ALL --cap-drop SYS_RESOURCE --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
  --security-opt systempaths=unconfined --device /dev/fuse -v /sys/fs/cgroup:/sys/fs/cgroup:rw --cgroupns host \
  -v ship-deb13-docker:/var/lib/docker
docker exec -e NODE_EXTRA_CA_CERTS=$ca -w /root/gpu-overhead-action ship-deb13 bash -c '
  t0=$(date +%s)
  scripts/dev-setup.sh && npm ci && npm test
  rc=$?; echo "== command 2: exit $rc in $(( $(date +%s) - t0 )) s"; exit $rc'
echo "== command 2 end $(date -u +%FT%TZ); host load: $(cat /proc/loadavg)"
