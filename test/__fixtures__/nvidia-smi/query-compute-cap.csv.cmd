$ nvidia-smi --query-gpu=index,compute_cap --format=csv,noheader,nounits
rc=0
