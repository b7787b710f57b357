$ docker image inspect local/gpu-overhead-test:absent
rc=1
