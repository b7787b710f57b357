/** One line of a workload's event channel (or stdout), read as a protocol event or refused. */
import type { WorkloadEvent } from '../types/index.js'

const KNOWN_EVENTS = new Set([
  'start',
  'env',
  'phase',
  'sample',
  'summary',
  'error',
  'stack',
  'memory',
  'region',
  'peers',
  'turn'
])
/** Deepest nesting an event may have (the stack event is 4 deep): deeper ones are refused, never walked. */
export const MAX_EVENT_DEPTH = 16

/** Nesting depth of a parsed JSON value, without recursion (a 100,000-deep value must not blow the stack). */
export function jsonDepth(value: unknown, limit = MAX_EVENT_DEPTH): number {
  let deepest = 0
  const todo: [unknown, number][] = [[value, 1]]
  for (let item = todo.pop(); item !== undefined; item = todo.pop()) {
    const [v, d] = item
    if (typeof v !== 'object' || v === null) continue
    if (d > deepest) deepest = d
    if (deepest > limit) return deepest
    for (const child of Object.values(v)) todo.push([child, d + 1])
  }
  return deepest
}

export function parseEventLine(line: string): WorkloadEvent | null {
  if (!line.startsWith('{')) return null
  try {
    const obj = JSON.parse(line) as unknown
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return null
    if (jsonDepth(obj) > MAX_EVENT_DEPTH) return null
    const ev = (obj as { event?: unknown }).event
    if (typeof ev !== 'string' || !KNOWN_EVENTS.has(ev)) return null
    if (ev === 'sample') {
      // A sample must declare its direction: the analysis never guesses it from the metric's name.
      const s = obj as { metric?: unknown; value?: unknown; better?: unknown }
      if (typeof s.metric !== 'string' || typeof s.value !== 'number' || !Number.isFinite(s.value))
        return null
      if (s.better !== 'lower' && s.better !== 'higher') return null
    }
    return obj as WorkloadEvent
  } catch {
    return null
  }
}
