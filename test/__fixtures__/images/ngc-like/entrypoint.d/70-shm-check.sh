# NGC's NOTE about the 64 MB default /dev/shm, on stdout.
shm_blocks=$(stat -f -c %b /dev/shm 2>/dev/null)
shm_bsize=$(stat -f -c %S /dev/shm 2>/dev/null)
if [ -n "$shm_blocks" ] && [ -n "$shm_bsize" ] && [ $((shm_blocks * shm_bsize)) -lt 1073741824 ]; then
  echo
  echo "NOTE: The SHMEM allocation limit is set to the default of 64MB.  This may be"
  echo "   insufficient for PyTorch.  NVIDIA recommends the use of the following flags:"
  echo "   docker run --gpus all --ipc=host --ulimit memlock=-1 --ulimit stack=67108864 ..."
fi
