$ nvidia-smi --query-gpu=index,name,uuid,driver_version,persistence_mode,mig.mode.current,power.limit,power.default_limit,power.min_limit,power.max_limit,clocks.sm,clocks.max.sm,clocks.applications.graphics,clocks.default_applications.graphics,ecc.mode.current,compute_mode,memory.total,pci.bus_id --format=csv,noheader,nounits
rc=0
