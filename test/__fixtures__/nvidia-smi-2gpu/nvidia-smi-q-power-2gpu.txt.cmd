$ nvidia-smi -q -d POWER
rc=0
