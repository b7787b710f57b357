$ docker run --rm --network none -v /dev/shm/gpu-overhead-io:/data:ro -v /dev/shm/gpu-overhead-io:/ckpt -v /dev/shm:/shm-root --tmpfs /scratch local/gpu-overhead-test:py cat /proc/self/mountinfo
rc=0
