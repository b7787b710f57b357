$ grep -E " /dev/shm " /proc/self/mountinfo   (on the host that ran the container of container-mountinfo-shm-host.txt)
rc=0
