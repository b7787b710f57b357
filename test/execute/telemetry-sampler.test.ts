/**
 * The sampler's process handling (spawn, live parsing, partial lines, early death, SIGTERM/SIGKILL,
 * field probing) against a fake `nvidia-smi`: a small sh script that replays lines of the lead's real
 * H200 recording (test/__fixtures__/nvidia-smi/telemetry-lms.csv) at intervals. Lines that are not
 * verbatim recorded ones are built from recorded ones and marked CORRUPTED (or column-dropped, for an
 * old driver) where they are made.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TelemetrySample } from '../../src/types/index.js'
import { InputError } from '../../src/util/errors.js'
import { TelemetrySampler } from '../../src/execute/telemetry.js'
import { DEFAULT_TELEMETRY_FIELDS, TELEMETRY_CSV_HEADER } from '../../src/execute/telemetry-parse.js'

const FIXTURES = join(process.cwd(), 'test/__fixtures__/nvidia-smi')
const RECORDED = readFileSync(join(FIXTURES, 'telemetry-lms.csv'), 'utf8')
  .split('\n')
  .filter(l => l !== '')
/** Recorded answer to an unknown field, for `not.a.field`. */
const REJECTION = readFileSync(join(FIXTURES, 'query-gpu-bad-field.txt'), 'utf8')
const FIELDS: string[] = [...DEFAULT_TELEMETRY_FIELDS]

/**
 * Script directives (one per line of lines.txt): `@half A|B` prints A, waits, then B and a newline
 * (a line split across reads); `@tail X` prints X with no newline; `@exit N` dies with status N;
 * anything else is printed as a line. After the last line it loops until killed, like nvidia-smi -lms.
 */
const FAKE = `#!/bin/sh
DIR="$(dirname "$0")"
printf '%s\\n' "$*" >>"$DIR/calls.log"
case " $* " in
  *" -lms "*) ;;
  *)
    for f in $(cat "$DIR/reject.txt"); do
      case " $* " in *"$f"*) cat "$DIR/reject-$f.txt"; exit 2 ;; esac
    done
    cat "$DIR/probe.txt"; exit 0 ;;
esac
[ -f "$DIR/ignore-term" ] && trap '' TERM
echo $$ >"$DIR/pid"
while IFS= read -r line; do
  case "$line" in
    '@exit '*) exit "\${line#@exit }" ;;
    '@half '*) rest="\${line#@half }"; printf '%s' "\${rest%%|*}"; sleep 0.15; printf '%s\\n' "\${rest#*|}" ;;
    '@tail '*) printf '%s' "\${line#@tail }" ;;
    *) printf '%s\\n' "$line" ;;
  esac
  sleep 0.02
done <"$DIR/lines.txt"
while :; do sleep 0.05; done
`

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fake-smi-'))
})
afterEach(() => {
  // Belt and braces: a failed test must not leave the fake behind.
  if (existsSync(join(dir, 'pid'))) {
    try {
      process.kill(Number(readFileSync(join(dir, 'pid'), 'utf8')), 'SIGKILL')
    } catch {
      // already gone
    }
  }
  rmSync(dir, { recursive: true, force: true })
})

function fake(
  lines: string[],
  opts: { probe?: string; reject?: string[]; ignoreTerm?: boolean } = {}
): string {
  const smi = join(dir, 'nvidia-smi')
  writeFileSync(smi, FAKE)
  chmodSync(smi, 0o755)
  writeFileSync(join(dir, 'lines.txt'), lines.join('\n') + '\n')
  writeFileSync(join(dir, 'probe.txt'), (opts.probe ?? RECORDED[0]!) + '\n')
  writeFileSync(join(dir, 'reject.txt'), (opts.reject ?? []).join('\n'))
  for (const f of opts.reject ?? [])
    writeFileSync(join(dir, `reject-${f}.txt`), REJECTION.replace('not.a.field', f))
  if (opts.ignoreTerm) writeFileSync(join(dir, 'ignore-term'), '')
  return smi
}

function calls(): string[] {
  return readFileSync(join(dir, 'calls.log'), 'utf8').trimEnd().split('\n')
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function waitFor(cond: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms
  while (!cond()) {
    if (Date.now() > until) throw new Error('timed out waiting')
    await new Promise(r => setTimeout(r, 20))
  }
}

/** CORRUPTED: a recorded line with one field replaced. */
function corrupt(line: string, field: string, value: string): string {
  const parts = line.split(', ')
  parts[FIELDS.indexOf(field)] = value
  return parts.join(', ')
}

describe('TelemetrySampler against a fake nvidia-smi replaying recorded lines', () => {
  test('live samples, partial lines, [N/A], garbage, other GPUs filtered, telemetry.csv, clean stop', async () => {
    const split = RECORDED[10]!
    const lines = [
      ...RECORDED.slice(0, 10),
      `@half ${split.slice(0, 50)}|${split.slice(50)}`, // one recorded line delivered in two reads
      corrupt(RECORDED[11]!, 'power.draw.instant', '[N/A]'), // CORRUPTED
      corrupt(RECORDED[12]!, 'index', '1'), // CORRUPTED: another GPU, not asked for
      REJECTION.trim(), // recorded nvidia-smi text that is not a sample
      '',
      ...RECORDED.slice(70, 80) // under load, power-capped lines among them
    ]
    const smi = fake(lines)
    const csv = join(dir, 'telemetry.csv')
    const live: TelemetrySample[] = []
    const warnings: string[] = []
    const before = Date.now()
    const sampler = await TelemetrySampler.start({
      nvidiaSmi: smi,
      gpuIndices: [0],
      csvPath: csv,
      onSample: s => live.push(s),
      onWarning: m => warnings.push(m)
    })
    expect(sampler).not.toBeNull()
    await waitFor(() => live.length === 22)
    const pid = Number(readFileSync(join(dir, 'pid'), 'utf8'))
    expect(alive(pid)).toBe(true)
    // Rows are on disk before stop: a crash now would lose nothing.
    expect(readFileSync(csv, 'utf8').trimEnd().split('\n')).toHaveLength(1 + 22)

    const samples = await sampler!.stop()
    const after = Date.now()
    expect(alive(pid)).toBe(false)
    expect(await sampler!.stop()).toEqual(samples)

    expect(calls().at(-1)).toBe(
      `--query-gpu=${FIELDS.join(',')} --format=csv,noheader,nounits -lms 100 --id=0`
    )
    expect(samples).toHaveLength(22)
    expect(samples.every(s => s.gpu_index === 0)).toBe(true)
    expect(samples[10]!.power_draw_w).toBe(Number(split.split(', ')[FIELDS.indexOf('power.draw')])) // split line, whole
    expect(samples[11]!.power_draw_instant_w).toBeNull()
    expect(samples.filter(s => s.clocks_event_reasons === 0x4).length).toBeGreaterThan(0)
    for (let i = 1; i < samples.length; i++)
      expect(samples[i]!.time_ms).toBeGreaterThanOrEqual(samples[i - 1]!.time_ms)
    expect(samples[0]!.time_ms).toBeGreaterThanOrEqual(before)
    expect(samples.at(-1)!.time_ms).toBeLessThanOrEqual(after)
    // The split line arrived with its second half, ~150 ms after its first.
    expect(samples[10]!.time_ms - samples[9]!.time_ms).toBeGreaterThanOrEqual(140)

    const status = sampler!.status()
    expect(status).toMatchObject({ running: false, died_early: false, garbage_lines: 1, samples: 22 })
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/not a sample: "Field \\"not.a.field\\"/)

    const rows = readFileSync(csv, 'utf8').split('\n')
    expect(rows[0] + '\n').toBe(TELEMETRY_CSV_HEADER)
    expect(rows.filter(r => r !== '')).toHaveLength(23)
  })

  test('nvidia-smi dying mid-check: marked, samples kept, cut-off last line dropped', async () => {
    const cut = RECORDED[5]!.slice(0, 90) // CORRUPTED: a recorded line cut off mid-write
    const smi = fake([...RECORDED.slice(0, 5), `@tail ${cut}`, '@exit 3'])
    const warnings: string[] = []
    const sampler = (await TelemetrySampler.start({ nvidiaSmi: smi, onWarning: m => warnings.push(m) }))!
    await waitFor(() => !sampler.status().running)
    expect(sampler.status()).toMatchObject({ died_early: true, exit_code: 3, samples: 5 })
    expect(warnings.join('\n')).toMatch(/nvidia-smi stopped during the check \(exit 3\) after 5 samples/)
    const samples = await sampler.stop()
    expect(samples).toHaveLength(5)
    expect(sampler.status().garbage_lines).toBe(1)
  })

  test('SIGTERM ignored: SIGKILL after the grace period, nothing left running', async () => {
    const smi = fake(RECORDED.slice(0, 3), { ignoreTerm: true })
    const sampler = (await TelemetrySampler.start({ nvidiaSmi: smi, killGraceMs: 300 }))!
    await waitFor(() => sampler.collected.length === 3)
    const pid = Number(readFileSync(join(dir, 'pid'), 'utf8'))
    const t = Date.now()
    const samples = await sampler.stop()
    expect(Date.now() - t).toBeGreaterThanOrEqual(290)
    expect(samples).toHaveLength(3)
    expect(sampler.status()).toMatchObject({ signal: 'SIGKILL', died_early: false })
    expect(alive(pid)).toBe(false)
  })

  test('old driver: unknown fields found by the probe, reasons aliased, instant power dropped', async () => {
    // Column-dropped variants of recorded lines: what a driver without power.draw.instant prints.
    const drop = (l: string): string =>
      l
        .split(', ')
        .filter((_, i) => FIELDS[i] !== 'power.draw.instant')
        .join(', ')
    const smi = fake(RECORDED.slice(74, 78).map(drop), {
      probe: drop(RECORDED[0]!),
      reject: ['clocks_event_reasons.active', 'power.draw.instant']
    })
    const warnings: string[] = []
    const result = await TelemetrySampler.tryStart({ nvidiaSmi: smi, onWarning: m => warnings.push(m) })
    const sampler = result.sampler!
    const expected = FIELDS.filter(f => f !== 'power.draw.instant').map(f =>
      f === 'clocks_event_reasons.active' ? 'clocks_throttle_reasons.active' : f
    )
    expect(sampler.fields).toEqual(expected)
    expect(warnings).toEqual([
      expect.stringContaining("using its older name 'clocks_throttle_reasons.active'"),
      expect.stringContaining("does not know 'power.draw.instant'")
    ])
    expect(result.warnings).toEqual(warnings)
    await waitFor(() => sampler.collected.length === 4)
    const samples = await sampler.stop()
    expect(calls().at(-1)).toContain(`--query-gpu=${expected.join(',')} `)
    expect(samples.every(s => s.power_draw_instant_w === null && s.power_draw_w !== null)).toBe(true)
    expect(samples.map(s => s.clocks_event_reasons)).toContain(0x4)
    expect(sampler.status().garbage_lines).toBe(0)
  })

  test('telemetry.csv gets its header once across samplers', async () => {
    const smi = fake(RECORDED.slice(0, 2))
    const csv = join(dir, 'telemetry.csv')
    for (let i = 0; i < 2; i++) {
      const s = (await TelemetrySampler.start({ nvidiaSmi: smi, csvPath: csv }))!
      await waitFor(() => s.collected.length === 2)
      await s.stop()
    }
    const rows = readFileSync(csv, 'utf8').trimEnd().split('\n')
    expect(rows).toHaveLength(1 + 4)
    expect(rows.filter(r => r.startsWith('time_ms,'))).toHaveLength(1)
  })
})

describe('TelemetrySampler: no sampler, and why', () => {
  test('nvidia-smi missing', async () => {
    const r = await TelemetrySampler.tryStart({ nvidiaSmi: join(dir, 'no-such-nvidia-smi') })
    expect(r.sampler).toBeNull()
    expect(r.reason).toMatch(/nvidia-smi not found/)
    const warnings: string[] = []
    expect(
      await TelemetrySampler.start({ nvidiaSmi: join(dir, 'nope'), onWarning: m => warnings.push(m) })
    ).toBeNull()
    expect(warnings[0]).toMatch(/not found/)
  })

  test('device cpu', async () => {
    const r = await TelemetrySampler.tryStart({ device: 'cpu', nvidiaSmi: fake([]) })
    expect(r).toMatchObject({ sampler: null, reason: 'device is cpu: no GPU telemetry' })
    expect(existsSync(join(dir, 'calls.log'))).toBe(false)
  })

  test('nvidia-smi failing outright: its recorded message becomes the reason', async () => {
    // The fake rejects the 'index' field itself, which the sampler cannot do without.
    const r = await TelemetrySampler.tryStart({ nvidiaSmi: fake([], { reject: ['index'] }) })
    expect(r.sampler).toBeNull()
    expect(r.reason).toMatch(/exit 2\): Field "index" is not a valid field/)
  })

  test('GPU asked for is not there', async () => {
    const r = await TelemetrySampler.tryStart({ nvidiaSmi: fake([]), gpuIndices: [3] })
    expect(r).toMatchObject({ sampler: null, reason: 'nvidia-smi shows no GPU 3 (it shows 0)' })
    expect(calls()[0]).toContain('--id=3')
  })

  test('a field this GPU never reports is warned about up front', async () => {
    // CORRUPTED probe line: power.draw.instant as a GPU without it reports it.
    const probe = corrupt(RECORDED[0]!, 'power.draw.instant', '[Not Supported]')
    const r = await TelemetrySampler.tryStart({ nvidiaSmi: fake(RECORDED.slice(0, 1), { probe }) })
    expect(r.warnings).toEqual([
      "telemetry: 'power.draw.instant' reads [Not Supported] on every GPU here; it will be empty"
    ])
    await r.sampler!.stop()
  })

  test('bad options are input errors', async () => {
    await expect(TelemetrySampler.tryStart({ intervalMs: 5 })).rejects.toThrow(InputError)
    await expect(TelemetrySampler.tryStart({ fields: ['index', 'fan.speed'] })).rejects.toThrow(
      /telemetry-fields/
    )
    await expect(TelemetrySampler.tryStart({ gpuIndices: [-1] })).rejects.toThrow(/gpu-indices/)
  })
})
