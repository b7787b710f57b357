#!/usr/bin/env bash
# How the files in this folder were recorded, on the project's GPU device machine (H200). Real nvidia-smi
# output only. Usage: OUT=dir bash record.sh
# Question answered: does nvidia-smi -lms flush each interval into a pipe (so that the sampler may use the
# arrival time of a line as its time), or does it block-buffer? And what does the loop cost in CPU?
set -u
FIELDS=timestamp,index,uuid,utilization.gpu,utilization.memory,clocks.sm,clocks.mem,power.draw,power.draw.instant,temperature.gpu,memory.used,pstate,clocks_event_reasons.active
cd "$OUT"
{ echo "\$ nvidia-smi --query-gpu=driver_version,name --format=csv,noheader"; nvidia-smi --query-gpu=driver_version,name --format=csv,noheader; } >env.txt 2>&1
# pipe-lms.csv: the sampler's exact command (plus --id=0, as the sampler passes for gpuIndices [0]), read
# through a pipe; pipe-arrival.tsv stamps each read() of that pipe: host epoch ms, bytes, newlines.
nvidia-smi --query-gpu=$FIELDS --format=csv,noheader,nounits -lms 100 --id=0 2>pipe-lms.stderr > >(python3 -c '
import os, time
out = open("pipe-lms.csv", "wb"); log = open("pipe-arrival.tsv", "w")
log.write("arrival_ms\tbytes\tnewlines\n")
while True:
    b = os.read(0, 65536)
    if not b: break
    log.write("%d\t%d\t%d\n" % (time.time() * 1000, len(b), b.count(b"\n"))); out.write(b)
') &
SMI=$!
sleep 1
python3 - <<'PY'
import time, torch
a = torch.randn(8192, 8192, device='cuda', dtype=torch.bfloat16)
t = time.time()
while time.time() - t < 2:
    for _ in range(50):
        c = a @ a
    torch.cuda.synchronize()
PY
sleep 1
# nvidia-smi's own CPU time over its life (utime+stime in clock ticks), for the overhead budget.
echo "cpu_ticks=$(awk '{print $14+$15}' /proc/$SMI/stat) clk_tck=$(getconf CLK_TCK) elapsed_s=$(ps -o etimes= -p $SMI) nproc=$(nproc)" >pipe-cpu.txt
kill -TERM $SMI; wait $SMI; echo "rc_after_sigterm=$?" >>pipe-lms.stderr
sleep 1
