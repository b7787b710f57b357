$ nvidia-smi --query-gpu=index,not.a.field --format=csv,noheader,nounits
rc=2
