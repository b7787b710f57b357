echo
echo "============="
echo "== PyTorch =="
echo "============="
echo
echo "NVIDIA Release ${NVIDIA_PYTORCH_VERSION} (build ${NVIDIA_BUILD_ID})"
echo "PyTorch Version ${PYTORCH_VERSION}"
echo
echo "Container image Copyright (c) 2025, NVIDIA CORPORATION & AFFILIATES. All rights reserved."
echo
echo "This container image and its contents are governed by the NVIDIA Deep Learning Container License."
echo "By pulling and using the container, you accept the terms and conditions of this license:"
echo "https://developer.nvidia.com/ngc/nvidia-deep-learning-container-license"
