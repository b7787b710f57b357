#!/bin/sh
# Start the co-tenant (it waits until the workload has opened the GPU), then run the real command.
python3 /opt/noisy/noisy.py >/dev/null 2>&1 &
exec "$@"
