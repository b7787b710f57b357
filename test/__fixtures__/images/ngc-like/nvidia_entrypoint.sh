#!/bin/sh
# Modelled on NGC's /opt/nvidia/nvidia_entrypoint.sh: source every entrypoint.d script (they print the
# banner and notes on stdout, warnings on stderr, and may export variables), then run the command.
for script in /opt/nvidia/entrypoint.d/*.sh; do
  [ -f "$script" ] && . "$script"
done
echo
if [ $# -eq 0 ]; then exec /bin/sh; fi
exec "$@"
