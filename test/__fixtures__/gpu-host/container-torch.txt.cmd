$ docker run --rm --network none --device /dev/nvidia0 --device /dev/nvidiactl --device /dev/nvidia-uvm --device /dev/nvidia-uvm-tools -v /usr/local/nvidia:/usr/local/nvidia:ro local/gpu-torch:host python3 -c import torch,sys; print(sys.executable, torch.__version__, torch.cuda.is_available(), torch.cuda.get_device_name(0))
rc=0
