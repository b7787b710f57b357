$ nvidia-smi --query-gpu=clocks_throttle_reasons.active --format=csv,noheader,nounits
rc=0
