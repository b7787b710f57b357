$ docker image inspect local/nvidia-cuda-style:12.4.1-base-ubuntu22.04
rc=0
