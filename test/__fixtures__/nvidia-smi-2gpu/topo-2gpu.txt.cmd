$ nvidia-smi topo -m
rc=0
