$ docker image inspect local/gpu-torch:host
rc=0
