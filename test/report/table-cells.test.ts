/**
 * A pipe is escaped for a table cell only, by the one table builder: a code span in a list or prose shows its text
 * as it is (`a | b`, never `a \| b`), and the same value in a cell neither splits the cell nor shows a backslash.
 * GFM (spec, "Tables"; cmark-gfm's cell scanner and unescape_pipes) never ends a cell at a pipe right after a
 * backslash, and drops that one backslash before the cell's inlines are parsed, code spans included.
 */
import { whyMarkdown } from '../../src/report/why.js'
import { code, cell } from '../../src/report/format.js'
import { rawTable, table } from '../../src/report/table.js'
import type { Explanation, Finding } from '../../src/types/index.js'
import { mdCode, mdTableCell } from '../../src/util/text.js'

/** A GFM table row as cmark-gfm splits it: cells end at pipes with no backslash right before; one is dropped. */
function gfmCells(line: string): string[] {
  const inner = line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '')
  return inner.split(/(?<!\\)\|/).map(c => c.trim().replace(/\\\|/g, '|'))
}

const VALUES = ['sh -c "a | b"', 'a\\|b', '\\\\|', '|', 'x || y', 'no pipe']

describe('pipes: escaped in a table cell, nowhere else', () => {
  it.each(VALUES)('%j: a code span shows it as it is; in a cell, GFM gets the same code span back', v => {
    expect(mdCode(v).replace(/^`+ ?| ?`+$/g, '')).toBe(v)
    for (const md of [code(v), cell(v)]) {
      for (const build of [table, rawTable]) {
        const [, , row] = build([
          ['h', 'k'],
          [md, 'x']
        ]).split('\n')
        expect(gfmCells(row!)).toEqual([md, 'x'])
      }
      expect(gfmCells(`| ${mdTableCell(md)} |`)).toEqual([md])
    }
  })

  it("a code span in the explainer's list has no backslash; the same value in its table splits no cell", () => {
    const finding = (relevant: boolean, key: string): Finding => ({
      kind: 'cotenant',
      key,
      label: 'another process on the GPU',
      baseline: null,
      candidate: 'sh -c "nvidia-smi | grep MiB"',
      impact: relevant ? 3 : 1,
      domains: [],
      explains: relevant ? ['matmul kernel_ms +5.0%'] : [],
      workloads: ['matmul'],
      meaning: 'it shares the GPU',
      fix: 'stop it',
      relevant
    })
    const e: Explanation = {
      baseline_env: 'native',
      candidate_env: 'container',
      measured: [],
      findings: [finding(true, 'a'), finding(false, 'b')],
      headline: 'another process on the GPU'
    }
    const md = whyMarkdown(e)
    const bullet = md.split('\n').find(l => l.startsWith('- '))
    expect(bullet).toBe('- another process on the GPU: _unset_ → `sh -c "nvidia-smi | grep MiB"`')
    const row = md.split('\n').find(l => /^\|\s*1 \|/.test(l))!
    const cells = gfmCells(row)
    expect(cells).toHaveLength(7)
    expect(cells[3]).toBe('`sh -c "nvidia-smi | grep MiB"`')
  })
})
