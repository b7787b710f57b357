$ docker run --rm --network none -v /tmp:/data:ro --tmpfs /scratch local/gpu-torch:host cat /proc/self/mountinfo
rc=0
