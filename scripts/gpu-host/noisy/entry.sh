#!/bin/sh
# Start the co-tenant, give it a moment to own its CUDA context, then run the real command.
python3 /opt/noisy/noisy.py >/dev/null 2>&1 &
sleep 2
exec "$@"
