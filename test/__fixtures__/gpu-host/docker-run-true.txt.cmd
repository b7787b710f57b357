$ bash -c for i in 1 2 3 4 5; do /usr/bin/time -f %e docker run --rm --network none local/gpu-torch:host true; done
rc=0
