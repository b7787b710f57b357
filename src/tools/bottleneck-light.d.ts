// The light build (no Redis) that @octokit/plugin-throttling itself loads, typed as the full package it mirrors.
declare module 'bottleneck/light.js' {
  import Bottleneck from 'bottleneck'
  export default Bottleneck
}
