#!/bin/sh
# Issue 52's minority slow path: for a share of container starts (SLOW_BELOW of 65536, drawn from /dev/urandom,
# a source independent of the tool's seed and schedule), a light GPU co-tenant (../noisy/noisy.py, NOISY_DUTY of
# every NOISY_PERIOD_MS) runs beside the workload; the other starts run the workload alone. The image that
# differs in nothing is the same build with SLOW_BELOW=0. The draw is printed on stderr (the run's log; the
# protocol never parses it), so the probe can count the starts that took the path apart from the tool.
if python3 -c "import os, sys; sys.exit(int.from_bytes(os.urandom(2), 'big') >= int(os.environ.get('SLOW_BELOW', '0')))"; then
  echo "modes-slow-path: on" >&2
  if [ "${MODES_CPU:-0}" = 1 ]; then
    # The CPU analogue (scripts/gpu-host/e2e-modes.sh with MODES_DEVICE=cpu): a spinning co-tenant for the process's life.
    python3 -c "while True: pass" >/dev/null 2>&1 &
  else
    NOISY_WATCH_PID=$$ python3 /opt/modes/noisy.py >/dev/null 2>&1 &
  fi
else
  echo "modes-slow-path: off" >&2
fi
exec "$@"
