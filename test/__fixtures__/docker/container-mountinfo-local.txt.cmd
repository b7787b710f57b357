$ docker run --rm --network none -v /tmp/tmp.RbX3seesRd:/data:ro -v /tmp/tmp.RbX3seesRd:/ckpt --tmpfs /scratch -v gpu-overhead-test-vol:/vol local/gpu-overhead-test:py cat /proc/self/mountinfo
rc=0
