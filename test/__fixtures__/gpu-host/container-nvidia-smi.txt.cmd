$ docker run --rm --network none --device /dev/nvidia0 --device /dev/nvidiactl --device /dev/nvidia-uvm --device /dev/nvidia-uvm-tools -v /usr/local/nvidia:/usr/local/nvidia:ro local/gpu-torch:host nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rc=0
