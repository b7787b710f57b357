$ nvidia-smi --help-query-gpu
rc=0
