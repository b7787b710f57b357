/**
 * github-action-benchmark's custom JSON (tool `customSmallerIsBetter` or `customBiggerIsBetter`): a list of
 * `{name, unit, value, range?, extra?}`. The direction is the format's, never the name's; `range` and
 * `extra` are free text in that tool and are not read.
 */
import type { Direction } from '../../types/index.js'
import type { JsonSource, SampleRow } from './json-file.js'

export function customJsonRows(better: Direction) {
  return (src: JsonSource, doc: unknown): SampleRow[] => {
    const entries = src.list(doc, '', 'a list of {"name", "unit", "value"} objects')
    src.count(entries.length, '')
    return entries.map((raw, i) => {
      const at = `[${i}]`
      const entry = src.object(raw, at, 'a benchmark: name, unit, value')
      return {
        workload: src.name(entry.name, `${at}.name`, 'the benchmark name'),
        metric: 'value',
        value: src.number(entry.value, `${at}.value`, 'the measured value'),
        unit: src.name(entry.unit, `${at}.unit`, 'the unit of value'),
        better
      }
    })
  }
}
