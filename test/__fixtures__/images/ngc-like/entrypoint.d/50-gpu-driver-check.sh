# NGC warns when no driver is visible; on stderr here, as the field's images do for warnings.
if ! [ -e /dev/nvidiactl ]; then
  echo "WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available." >&2
  echo "   Use the NVIDIA Container Toolkit to start this container with GPU support; see" >&2
  echo "   https://docs.nvidia.com/datacenter/cloud-native/ ." >&2
fi
