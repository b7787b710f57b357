$ nvidia-smi
rc=0
