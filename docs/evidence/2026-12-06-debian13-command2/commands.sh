#!/usr/bin/env bash
# Command 2 of README in a fresh Debian 13 container (debootstrap --variant=minbase trixie, docker import),
# /tmp a tmpfs as on a stock Debian 13, dockerd started inside by dev-setup.sh (every capability but
# SYS_RESOURCE, which this sandbox withholds, so not --privileged; unconfined seccomp/AppArmor/system paths), 2 CPUs.
set -u
name=ship-deb13
docker rm -f $name >/dev/null 2>&1
docker volume rm -f ship-deb13-docker >/dev/null 2>&1
docker volume create ship-deb13-docker >/dev/null
docker run -d --name $name --cap-add ALL --cap-drop SYS_RESOURCE --security-opt seccomp=unconfined --security-opt apparmor=unconfined --security-opt systempaths=unconfined --device /dev/fuse -v /sys/fs/cgroup:/sys/fs/cgroup:rw --cgroupns host --cpus 2 --memory 12g \
  --tmpfs /tmp:rw,exec,nosuid,nodev,size=8g,mode=1777 \
  -v ship-deb13-docker:/var/lib/docker ship-debian13:base sleep infinity
docker cp src $name:/root/gpu-overhead-action
docker exec $name sh -c 'cat /etc/os-release | head -2; findmnt -n -o FSTYPE /tmp; nproc'
start=$(date +%s)
echo "start $(date -u +%FT%TZ); host load: $(cat /proc/loadavg)"
docker exec -w /root/gpu-overhead-action $name bash -c '
  t0=$(date +%s)
  scripts/dev-setup.sh; rc=$?; t1=$(date +%s); echo "== dev-setup.sh: exit $rc in $((t1-t0)) s"
  [ $rc = 0 ] || exit $rc
  npm ci --no-audit --no-fund; rc=$?; t2=$(date +%s); echo "== npm ci: exit $rc in $((t2-t1)) s"
  [ $rc = 0 ] || exit $rc
  npm test; rc=$?; t3=$(date +%s); echo "== npm test: exit $rc in $((t3-t2)) s"
  echo "== command 2 total: $((t3-t0)) s"
  exit $rc'
rc=$?
echo "end $(date -u +%FT%TZ); exit $rc; wall $(( $(date +%s) - start )) s; host load: $(cat /proc/loadavg)"
#!/usr/bin/env bash
# Continuation in the same container after dev-setup.sh (718 s): npm ci failed on the sandbox's TLS-intercepting
# egress proxy (its CA is not in a fresh Debian). The proxy's CA is given to Node (NODE_EXTRA_CA_CERTS), nothing else.
name=ship-deb13
echo "start $(date -u +%FT%TZ); host load: $(cat /proc/loadavg)"
docker exec -e NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/sandboxing-egress-ca.crt -w /root/gpu-overhead-action $name bash -c '
  t1=$(date +%s)
  npm ci --no-audit --no-fund; rc=$?; t2=$(date +%s); echo "== npm ci: exit $rc in $((t2-t1)) s"
  [ $rc = 0 ] || exit $rc
  npm test; rc=$?; t3=$(date +%s); echo "== npm test: exit $rc in $((t3-t2)) s"
  exit $rc'
rc=$?
echo "end $(date -u +%FT%TZ); exit $rc; host load: $(cat /proc/loadavg)"
#!/usr/bin/env bash
# The two integration tests that failed on a stock Debian 13 (/tmp a tmpfs): test/preflight/mounts.test.ts, in the
# same container, on the same snapshot (24a79ef, the io-check fix included), CI=true (a missing tool is an error).
name=ship-deb13
echo "start $(date -u +%FT%TZ); host load: $(cat /proc/loadavg)"
docker exec -e CI=true -e NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/sandboxing-egress-ca.crt -w /root/gpu-overhead-action $name bash -c '
  findmnt -n -o SOURCE,FSTYPE /tmp; t0=$(date +%s)
  NODE_OPTIONS=--experimental-vm-modules npx jest --selectProjects integration -- test/preflight/mounts.test.ts; rc=$?
  echo "== mounts.test.ts: exit $rc in $(( $(date +%s) - t0 )) s"; exit $rc'
rc=$?
echo "end $(date -u +%FT%TZ); exit $rc; host load: $(cat /proc/loadavg)"
