$ nvidia-smi -q
rc=0
