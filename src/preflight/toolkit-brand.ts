/**
 * The GPU brand as the NVIDIA Container Toolkit names it for `brand=` conditions: libnvidia-container
 * `src/driver.c` `driver_get_device_brand_1_svc` (NVIDIA/libnvidia-container at
 * 63d366ee3b4183513c310ac557bf31b05b83328f) turns NVML's brand into one word (`Tesla`, `VCS`, `NvidiaRTX`, …);
 * nvidia-smi prints the same NVML brand as "Product Brand" in words (`NVIDIA Virtual Compute Server`).
 */

/**
 * libnvidia-container's brand words (src/driver.c): what `brand=` compares with, case-insensitively. NVML's
 * VGAMING is CLOUD_GAMING under its old name; any brand not listed reads `Unknown`.
 */
export const TOOLKIT_BRANDS = [
  'Quadro',
  'Tesla',
  'NVS',
  'GRID',
  'GeForce',
  'TITAN',
  'VApps',
  'VPC',
  'VCS',
  'VWS',
  'CloudGaming',
  'QuadroRTX',
  'NvidiaRTX',
  'Nvidia',
  'GeForceRTX',
  'TitanRTX',
  'Unknown'
] as const
export type ToolkitBrand = (typeof TOOLKIT_BRANDS)[number]

/**
 * nvidia-smi's "Product Brand" (the same NVML brand, in words: `NVIDIA Virtual Compute Server`, `Quadro RTX`)
 * → the toolkit's word. Compared without spaces and case; null for a wording not listed here.
 */
const SMI_BRANDS: Readonly<Record<string, ToolkitBrand>> = {
  quadro: 'Quadro',
  tesla: 'Tesla',
  nvs: 'NVS',
  grid: 'GRID',
  geforce: 'GeForce',
  titan: 'TITAN',
  nvidiavirtualapplications: 'VApps',
  virtualapplications: 'VApps',
  nvidiavirtualpc: 'VPC',
  virtualpc: 'VPC',
  nvidiavirtualcomputeserver: 'VCS',
  virtualcomputeserver: 'VCS',
  // NVIDIA renamed vCS "vGPU for Compute" (same NVML_BRAND_NVIDIA_VCS).
  nvidiavgpuforcompute: 'VCS',
  vgpuforcompute: 'VCS',
  nvidiartxvirtualworkstation: 'VWS',
  rtxvirtualworkstation: 'VWS',
  nvidiacloudgaming: 'CloudGaming',
  cloudgaming: 'CloudGaming',
  quadrortx: 'QuadroRTX',
  nvidiartx: 'NvidiaRTX',
  nvidia: 'Nvidia',
  geforcertx: 'GeForceRTX',
  titanrtx: 'TitanRTX',
  unknown: 'Unknown'
}

/** The toolkit's brand word for an nvidia-smi "Product Brand", or null when the wording is not known. */
export function toolkitBrand(productBrand: string | null): ToolkitBrand | null {
  if (productBrand === null) return null
  const direct = TOOLKIT_BRANDS.find(b => b.toLowerCase() === productBrand.trim().toLowerCase())
  return direct ?? SMI_BRANDS[productBrand.replace(/\s+/g, '').toLowerCase()] ?? null
}
