/** What the docker and podman launchers share: one engine CLI (tools/docker.ts builds its argv). */
export {
  containerArgs,
  containerSpec,
  engineProcessSpec,
  JIT_CACHE_CONTAINER_DIR,
  PEERS_ENV,
  RUN_CONTAINER_DIR,
  type ContainerRunInput
} from './spec.js'
export { gitMaskArgs, gitMasks } from './git-mask.js'
