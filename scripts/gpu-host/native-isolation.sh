#!/bin/bash
# GPU host, issue 53: native commands in their own user, PID and mount namespaces (src/tools/unshare.ts).
# 1. host facts: kernel, util-linux, user-namespace sysctls, Yama;
# 2. what a command reads of its parent's environment, plain and isolated, as root and as nobody;
# 3. CUDA inside the namespaces: a bf16 matmul's time per call, plain and isolated, interleaved (same process
#    shape: what is timed is inside the process, so the namespace must not change it); unshare's start cost;
# 4. one check through the action entry (dist/index.js, rebuilt) with a command on the GPU: its preflight row.
# Run from the repo root after: source .gpu-host/setup.sh (and npm run build).  Writes 4 small files to $OUT.
set -u
REPO=$PWD
NI=/tmp/native-isolation; rm -rf "$NI"; mkdir -p "$NI"; chmod 755 "$NI"
W=(unshare --map-current-user --pid --fork --mount-proc --kill-child --)
{
  uname -r; unshare --version
  for f in /proc/sys/kernel/apparmor_restrict_unprivileged_userns /proc/sys/kernel/unprivileged_userns_clone \
    /proc/sys/user/max_user_namespaces /proc/sys/kernel/yama/ptrace_scope; do echo "$f=$(cat "$f" 2>&1)"; done
  "${W[@]}" true && echo "isolation as root: ok" || echo "isolation as root: FAILED"
  setpriv --reuid=65534 --regid=65534 --clear-groups "${W[@]}" true && echo "isolation as nobody: ok" || echo "isolation as nobody: FAILED"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  "${W[@]}" nvidia-smi --query-gpu=name --format=csv,noheader && echo "nvidia-smi inside: ok"
} > "$OUT/isolation-host.txt" 2>&1

cat > "$NI/probe.py" <<'PY'
import json, os, sys
mark = b"SECRET_MARK_53"
pid, chain = os.getppid(), []
for _ in range(6):
    try:
        chain.append([pid, mark in open(f"/proc/{pid}/environ", "rb").read()])
        pid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
    except Exception as e:
        chain.append([pid, type(e).__name__]); break
    if pid <= 1: break
hits = []
for d in os.listdir("/proc"):
    if d.isdigit():
        try:
            if mark in open(f"/proc/{d}/environ", "rb").read(): hits.append(int(d))
        except Exception: pass
print(json.dumps({"how": sys.argv[1], "uid": os.getuid(), "pid": os.getpid(), "chain": chain, "hits": hits}))
PY
cat > "$NI/parent.py" <<'PY'
import subprocess, sys
print(subprocess.run(sys.argv[1:], env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}, capture_output=True, text=True).stdout.strip())
PY
P=/usr/bin/python3
NB=(setpriv --reuid=65534 --regid=65534 --clear-groups)
{
  SECRET_MARK_53=x $P "$NI/parent.py" $P "$NI/probe.py" root-plain
  SECRET_MARK_53=x $P "$NI/parent.py" "${W[@]}" $P "$NI/probe.py" root-isolated
  SECRET_MARK_53=x "${NB[@]}" $P "$NI/parent.py" $P "$NI/probe.py" nobody-plain
  SECRET_MARK_53=x "${NB[@]}" $P "$NI/parent.py" "${W[@]}" $P "$NI/probe.py" nobody-isolated
} > "$OUT/isolation-probe.jsonl" 2>&1

cat > "$NI/mm.py" <<'PY'
import sys, time, torch
x = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
for _ in range(20): x @ x
torch.cuda.synchronize(); t = time.perf_counter()
for _ in range(100): x @ x
torch.cuda.synchronize()
print("%s %.4f" % (sys.argv[1], (time.perf_counter() - t) * 10))
PY
{
  for i in 1 2 3 4 5 6; do
    python3 "$NI/mm.py" plain_ms_per_matmul; "${W[@]}" python3 "$NI/mm.py" isolated_ms_per_matmul
  done
  python3 - <<'PY'
import subprocess, time, statistics
W = ["unshare", "--map-current-user", "--pid", "--fork", "--mount-proc", "--kill-child", "--"]
for name, argv in (("true", ["/bin/true"]), ("python3 -c pass", ["python3", "-c", "pass"])):
    a, b = [], []
    for _ in range(100):
        for arr, v in ((a, argv), (b, W + argv)):
            t = time.perf_counter(); subprocess.run(v); arr.append((time.perf_counter() - t) * 1000)
    print("start %s: plain %.2f ms, isolated %.2f ms (medians of 100, interleaved)" % (name, statistics.median(a), statistics.median(b)))
PY
} > "$OUT/isolation-timing.txt" 2>&1

WS=/tmp/ws-isolation; rm -rf "$WS"; mkdir -p "$WS"; cp "$NI/mm.py" "$WS/mm.py"
( cd "$WS" && env -i PATH="$PATH" HOME="$HOME" GITHUB_ACTIONS=true GITHUB_WORKSPACE="$WS" GITHUB_OUTPUT="$NI/out" \
    GITHUB_STEP_SUMMARY="$NI/summary" GITHUB_STATE="$NI/state" GITHUB_EVENT_NAME=workflow_dispatch RUNNER_TEMP=/tmp \
    INPUT_ARMS=native,native "INPUT_COMMANDS=mm: python3 {workspace}/mm.py x" INPUT_COMMAND-FORMATS=mm=wall \
    INPUT_RUNS=3 INPUT_MAX-RUNS=3 INPUT_COMMENT=never INPUT_CHECK-RUN= INPUT_BASELINE-BRANCH= INPUT_GITHUB-TOKEN=ghs_notreal \
    timeout -s INT 300 node "$REPO/dist/index.js" ) > "$NI/action.log" 2>&1
echo "exit=$?" > "$OUT/isolation-action.txt"
grep -E "native-isolation|verdict|wall_s|error" "$NI/action.log" | head -40 >> "$OUT/isolation-action.txt"
