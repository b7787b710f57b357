/** A remote engine's address from its variable (DOCKER_HOST, CONTAINER_HOST), checked for its scheme. */
import { EnvironmentError } from '../util/errors.js'

const SCHEMES = ['unix', 'tcp', 'ssh', 'npipe', 'fd'] as const

/** The endpoint, or null when the variable is unset or empty (the local engine). */
export function engineEndpoint(variable: string, value: string | undefined): string | null {
  if (value === undefined || value.trim() === '') return null
  const scheme = /^([a-z]+):\/\//.exec(value)?.[1]
  if (!scheme || !(SCHEMES as readonly string[]).includes(scheme))
    throw new EnvironmentError(
      `${variable}=${value} is not an engine address: use one of ${SCHEMES.map(s => `${s}://…`).join(', ')}`
    )
  return value
}
