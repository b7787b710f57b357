#!/bin/sh
# Issue 39's tail on real hardware: the image's entrypoint pauses the workload for STALL_S every STALL_PERIOD_S,
# as a sampling profiler or a watchdog sidecar shipped in an image would (py-spy stops the process it samples).
# A stall lands in one request of a few, so a minority of requests is slower and the request mean moves little.
# The workload is this shell's PID after exec (the tool runs --init).
W=$$
( while kill -0 "$W" 2>/dev/null; do
    sleep "${STALL_PERIOD_S:-2}"; kill -STOP "$W" 2>/dev/null; sleep "${STALL_S:-0.025}"; kill -CONT "$W" 2>/dev/null
  done ) >/dev/null 2>&1 &
exec "$@"
