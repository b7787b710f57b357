/**
 * The JSON file backend of the baseline store (default .github/gpu-overhead/baseline.json).
 *
 * The file is never overwritten silently: a corrupt or foreign file is reported and left alone unless
 * the caller explicitly asks to replace it (the old file is then kept beside it). Writes go to a temp
 * file in the same directory, are fsynced and renamed over the target, under a lock, so two jobs
 * updating the same file lose no update and a crash never leaves half a file.
 */
import { mkdir, open, rename } from 'node:fs/promises'
import { dirname } from 'node:path'
import lockfile from 'proper-lockfile'
import type { BaselineResult } from '../../types/index.js'
import {
  READ_LIMITS,
  UnsafePathError,
  ensureParents,
  parseJsonQuiet,
  readUntrusted,
  safeReplace
} from '../../util/safe-fs.js'
import { redactDeep } from '../../util/secrets.js'
import { appendToBaseline } from './append.js'
import { compareWithStored } from './compare-stored.js'
import {
  DEFAULT_BASELINE_PATH,
  DEFAULT_KEEP_CHECKS,
  emptyFile,
  parseBaseline,
  type BaselineFile
} from './format.js'
import type {
  AppendOptions,
  AppendResult,
  BaselineCompareOptions,
  BaselineLoad,
  BaselineStore,
  CurrentResults
} from './store.js'

/** `1 entry`, `3 entries`. */
const entriesWord = (n: number): string => `${n} ${n === 1 ? 'entry' : 'entries'}`

/** Write `text` to `file` atomically: temp file in the same directory, fsync, rename, fsync the directory. */
export async function writeFileAtomic(file: string, text: string, root?: string): Promise<void> {
  const dir = dirname(file)
  // Fresh temp file (O_EXCL, no link followed), fsynced, renamed over the target: util/safe-fs. Under a root
  // (the workspace), the folder is walked down from it at write time with no link followed (openat-style).
  safeReplace(file, text, root === undefined ? {} : { root })
  // Make the rename itself durable; not every platform lets a directory be fsynced.
  try {
    const d = await open(dir, 'r')
    try {
      await d.sync()
    } finally {
      await d.close()
    }
  } catch {
    // best effort
  }
}

export class JsonFileBaselineStore implements BaselineStore {
  /**
   * `root`: the workspace the file lies in (the tree, which the PR's commands could change during the check):
   * the file is read only as resolved inside it, and written by a walk down from it that follows no link.
   */
  constructor(
    readonly location: string = DEFAULT_BASELINE_PATH,
    readonly root?: string
  ) {}

  load(): Promise<BaselineLoad> {
    return Promise.resolve(this.loadNow())
  }

  private loadNow(): BaselineLoad {
    let text: string
    try {
      // The baseline comes from the tree: a regular file, not a link (it could point at a secret), capped.
      text = readUntrusted(this.location, {
        maxBytes: READ_LIMITS.baseline,
        noFollow: true,
        ...(this.root === undefined ? {} : { within: this.root })
      })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        return {
          status: 'missing',
          location: this.location,
          message: `No baseline file at ${this.location} yet.`
        }
      if (error instanceof UnsafePathError) return this.corrupt(`it ${error.reason}`)
      throw error
    }
    // Never quote the file: JSON.parse's message holds a slice of it (a secret, if the file is one).
    const quiet = parseJsonQuiet(text)
    if (!quiet.ok) return this.corrupt('it is not valid JSON')
    const json = quiet.value
    const parsed = parseBaseline(json)
    if ('error' in parsed) return this.corrupt(parsed.error)
    return {
      status: 'ok',
      location: this.location,
      message: `Baseline ${this.location}: ${entriesWord(Object.keys(parsed.data.entries).length)}.`,
      data: parsed.data
    }
  }

  private corrupt(why: string): BaselineLoad {
    return {
      status: 'corrupt',
      location: this.location,
      message:
        `Baseline file ${this.location} was ignored: ${why}. It will not be overwritten; ` +
        `fix or delete it; it is never overwritten silently.`
    }
  }

  async compare(current: CurrentResults, options: BaselineCompareOptions): Promise<BaselineResult> {
    const loaded = await this.load()
    if (loaded.status === 'missing' || loaded.data === undefined)
      return {
        status: loaded.status === 'corrupt' ? 'corrupt' : 'no-baseline',
        path: this.location,
        message: loaded.message,
        comparisons: [],
        saved: false
      }
    return compareWithStored(loaded.data, current, options, this.location)
  }

  async append(current: CurrentResults, options: AppendOptions = {}): Promise<AppendResult> {
    // Under the workspace: its folders made one at a time, each checked to be no link (`.github` swapped for one
    // during the check is refused here, before the lock, and again by the write's walk).
    if (this.root !== undefined) ensureParents(this.location, this.root)
    else await mkdir(dirname(this.location), { recursive: true })
    // The lock is a directory `<file>.lock` (atomic mkdir); realpath: false because the file may not
    // exist yet. Retries with jitter so concurrent jobs queue instead of failing.
    const release = await lockfile.lock(this.location, {
      realpath: false,
      stale: 30_000,
      retries: { retries: 400, factor: 1.2, minTimeout: 10, maxTimeout: 250, randomize: true }
    })
    try {
      const loaded = await this.load()
      let data: BaselineFile
      if (loaded.status === 'corrupt') {
        if (options.overwriteCorrupt !== true)
          return { saved: false, location: this.location, message: loaded.message, entries: 0 }
        const aside = `${this.location}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`
        await rename(this.location, aside)
        data = emptyFile()
      } else data = loaded.data ?? emptyFile()
      const { entries } = appendToBaseline(data, current, options)
      // Stored and pushed to the baseline branch: the workload's names with no secret in them.
      await writeFileAtomic(this.location, JSON.stringify(redactDeep(data), null, 2) + '\n', this.root)
      return {
        saved: true,
        location: this.location,
        message: `Saved check ${current.check_id} to ${this.location} (${entriesWord(entries)}; last ${options.keep ?? DEFAULT_KEEP_CHECKS} checks kept).`,
        entries
      }
    } finally {
      await release()
    }
  }
}
