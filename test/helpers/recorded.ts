/** Recorded workload output (test/__fixtures__/stacks/README.md): one event object per JSON line. */
import * as fs from 'node:fs'
import * as path from 'node:path'

const STACKS = path.resolve('test/__fixtures__/stacks')

export function recordedEvents(name: string): Record<string, unknown>[] {
  return fs
    .readFileSync(path.join(STACKS, `${name}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(l => JSON.parse(l) as Record<string, unknown>)
}
