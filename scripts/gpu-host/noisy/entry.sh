#!/bin/sh
# Start the co-tenant (it waits until the workload has opened the GPU), then run the real command.
# The workload is this shell's PID after exec (PID 1 only without an init process: the tool runs --init).
NOISY_WATCH_PID=$$ python3 /opt/noisy/noisy.py >/dev/null 2>&1 &
exec "$@"
