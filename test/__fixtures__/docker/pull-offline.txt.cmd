$ docker pull nvcr.io/nvidia/pytorch:25.01-py3
rc=1
