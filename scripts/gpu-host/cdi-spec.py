#!/usr/bin/env python3
"""Print a CDI spec (JSON, which CDI reads as YAML) for this host's NVIDIA GPUs, shaped like the output of
`nvidia-ctk cdi generate`: kind nvidia.com/gpu; one device per index, per UUID and `all`, each with its /dev/nvidiaN;
the shared control nodes (nvidiactl, nvidia-uvm, nvidia-uvm-tools, nvidia-modeset) and read-only, nosuid, nodev bind
mounts of the driver's libraries and tools in the common edits; NVIDIA_VISIBLE_DEVICES=void so that a toolkit hook
in the image does nothing more.

The test host has no NVIDIA Container Toolkit, so no `nvidia-cdi-hook`: where nvidia-ctk adds a create-symlinks hook
(libcuda.so.1 -> libcuda.so.580.x) and an update-ldcache hook, this spec mounts each library name (real file and
soname link alike) as the file it resolves to, and relies on the image's LD_LIBRARY_PATH (/usr/local/nvidia/lib64,
set by local/gpu-torch:host as NGC images set theirs). Usage: cdi-spec.py [DRIVER_DIR] (default /usr/local/nvidia).
"""
import glob
import json
import os
import subprocess
import sys

driver = sys.argv[1] if len(sys.argv) > 1 else "/usr/local/nvidia"


def node(path):
    return {"path": path}


def mount(path):
    return {"hostPath": os.path.realpath(path), "containerPath": path, "options": ["ro", "nosuid", "nodev", "bind"]}


smi = os.path.join(driver, "bin", "nvidia-smi")
smi = smi if os.path.exists(smi) else "nvidia-smi"
rows = subprocess.run([smi, "--query-gpu=index,uuid", "--format=csv,noheader"], capture_output=True, text=True,
                      timeout=60, check=True).stdout.strip().splitlines()
devices = []
for row in rows:
    index, uuid = [part.strip() for part in row.split(",")]
    edits = {"deviceNodes": [node(f"/dev/nvidia{index}")]}
    devices.append({"name": index, "containerEdits": edits})
    devices.append({"name": uuid, "containerEdits": edits})
devices.append({"name": "all", "containerEdits": {"deviceNodes": [node(f"/dev/nvidia{r.split(',')[0].strip()}") for r in rows]}})

control = [p for p in ("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset") if os.path.exists(p)]
files = sorted(p for p in glob.glob(os.path.join(driver, "lib64", "*.so*")) + glob.glob(os.path.join(driver, "bin", "*"))
               if os.path.isfile(p))
spec = {
    "cdiVersion": "0.5.0",
    "kind": "nvidia.com/gpu",
    "devices": devices,
    "containerEdits": {
        "env": ["NVIDIA_VISIBLE_DEVICES=void"],
        "deviceNodes": [node(p) for p in control],
        "mounts": [mount(p) for p in files],
    },
}
json.dump(spec, sys.stdout, indent=1)
print()
