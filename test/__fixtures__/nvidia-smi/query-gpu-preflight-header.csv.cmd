$ nvidia-smi --query-gpu=index,name,uuid,driver_version,persistence_mode,mig.mode.current,power.limit,clocks.sm,clocks.max.sm,ecc.mode.current,compute_mode,memory.total --format=csv
rc=0
