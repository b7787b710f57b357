$ nvidia-smi -i GPU-3162f25e-05ac-c984-bcd4-d9aa0cb33e5a --query-gpu=power.limit --format=csv,noheader,nounits
rc=0
