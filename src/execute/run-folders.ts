/**
 * Nothing shared by accident: every process gets folders of its own, named by a random run id (never a PID:
 * every container's workload has the same one). Its private folder (the event channel; in a container
 * mounted at launchers' RUN_CONTAINER_DIR) lives under a check folder (mode 0700) in the work folder (workRoot), and io's
 * checkpoint writes go into a fresh folder of that run under the checkpoint folder. The native and the
 * container arm, two lanes or two checks on one host never write into the same folder; each folder is removed
 * when its process ends (never following a link the image left there).
 */
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { WORK_FOLDER_PREFIX } from '../results/index.js'
import { appendAll } from '../util/arrays.js'
import { safeChmodFolder } from '../util/safe-fs.js'
import { createChannelFile } from './event-channel.js'
import { removePrivilegedFiles } from './privileged-files.js'

export const EVENTS_FILE = 'events.jsonl'

export interface RunFolder {
  runId: string
  /** The run's private folder on the host. */
  dir: string
  /** The events file on the host (read by the runner). */
  eventsFile: string
  /** The run's own checkpoint folder (host), when io writes checkpoints; null otherwise. */
  checkpoint: string | null
  /** Removes the run's folders (best effort: a hostile image may leave what the runner cannot delete). */
  remove(): void
}

/**
 * Where a check keeps what a container mounts: RUNNER_TEMP on a runner, else the results folder (`out`, a
 * folder the user named). Never os.tmpdir(): a remote engine (DOCKER_HOST, CONTAINER_HOST; ARC's dind sidecar)
 * shares only the runner's work folder, which holds the workspace and RUNNER_TEMP at the same path, and its
 * /tmp is its own: a folder mounted from the runner's /tmp is an empty one there.
 */
export function workRoot(out: string, env: NodeJS.ProcessEnv = process.env): string {
  const temp = env.RUNNER_TEMP
  if (temp && path.isAbsolute(temp)) {
    try {
      if (fs.statSync(temp).isDirectory()) return temp
    } catch {
      // not there: the results folder instead
    }
  }
  return out
}

/** Where the copy of the workloads folder lives in a check's folder (what a container mounts). */
const WORKLOADS_COPY = 'workloads'

/** A check's root for its runs' private folders: created 0700 in the work folder, removed at the end. */
export class RunFolders {
  private workloadsCopy: string | null = null
  private readonly jitCaches = new Map<string, string>()
  /** Setuid/setgid files and device, FIFO or socket nodes a process left in its folders (privileged-files.ts). */
  readonly privileged: string[] = []

  private constructor(readonly root: string) {}

  /** `root`: the work folder (workRoot), which a remote engine shares. */
  static open(checkId: string, root: string): RunFolders {
    const safeId = checkId.replace(/[^A-Za-z0-9-]/g, '')
    return new RunFolders(fs.mkdtempSync(path.join(root, `${WORK_FOLDER_PREFIX}${safeId}-`)))
  }

  /**
   * The workloads folder as a container mounts it: a copy in this check's folder, made once. The tool's own
   * folder lies wherever it was installed (npx's cache, a runner's tool cache), which a remote engine does not see.
   */
  workloads(source: string): string {
    if (this.workloadsCopy === null) {
      const dest = path.join(this.root, WORKLOADS_COPY)
      // Ours and fresh (the root is new); what is copied is the tool's own, never the checked-out tree.
      fs.cpSync(source, dest, {
        recursive: true,
        verbatimSymlinks: true,
        filter: src => path.basename(src) !== '__pycache__'
      })
      // The container's USER may be another user: readable by all (the 0700 root keeps other host users out).
      fs.chmodSync(dest, 0o755)
      this.workloadsCopy = dest
    }
    return this.workloadsCopy
  }

  /**
   * One container arm's CUDA JIT cache for one workload, kept for the check: empty at its first process (as a fresh
   * container's is), then what its processes compiled. Without it every container process JIT-compiles again
   * (1-2 s of each llm start-up on an H100, on the check's critical path) where the native arm keeps its cache in
   * the runner's home. One folder per `key` (arm and workload), never shared with another arm; writable for
   * the image's USER.
   */
  jitCache(key: string): string {
    let dir = this.jitCaches.get(key)
    if (dir === undefined) {
      dir = path.join(this.root, `jit-cache-${this.jitCaches.size + 1}`)
      // mkdir fails on anything already there; the root is ours and 0700.
      fs.mkdirSync(dir, { mode: 0o700 })
      safeChmodFolder(dir, 0o777)
      this.jitCaches.set(key, dir)
    }
    return dir
  }

  /**
   * One process's folders. `shared`: the folder is mounted into a container whose USER may be another
   * user, so it is made writable for that user (its 0700 parent keeps other host users out; the mount
   * itself bypasses the parent).
   */
  create(label: string, shared: boolean, checkpointBase: string | null): RunFolder {
    const runId = `${label.replace(/[^A-Za-z0-9_-]/g, '')}-${randomBytes(8).toString('hex')}`
    const dir = path.join(this.root, runId)
    fs.mkdirSync(dir, { mode: 0o700 })
    if (shared) safeChmodFolder(dir, 0o777)
    const eventsFile = path.join(dir, EVENTS_FILE)
    createChannelFile(eventsFile, shared ? 0o666 : 0o600)
    let checkpoint: string | null = null
    if (checkpointBase !== null) {
      checkpoint = path.join(checkpointBase, `gpu-overhead-run-${runId}`)
      // mkdir fails on anything already there (a link planted in advance included).
      fs.mkdirSync(checkpoint, { mode: 0o700 })
      if (shared) safeChmodFolder(checkpoint, 0o777)
    }
    const remove = (): void => {
      for (const d of [dir, checkpoint])
        if (d !== null) {
          // First what a root in the container may have left for later steps to run (issue 53 C2-17): even a
          // folder the runner then fails to remove holds none of it.
          appendAll(this.privileged, removePrivilegedFiles(d))
          fs.rmSync(d, { recursive: true, force: true, maxRetries: 2 })
        }
    }
    return {
      runId,
      dir,
      eventsFile,
      checkpoint,
      remove: () => {
        try {
          remove()
        } catch {
          // Files a container user made in a subfolder of its own: left for the check's clean-up.
        }
      }
    }
  }

  /** Removes every run folder of the check (at its end, also after a crash). */
  close(): void {
    appendAll(this.privileged, removePrivilegedFiles(this.root))
    try {
      fs.rmSync(this.root, { recursive: true, force: true, maxRetries: 2 })
    } catch {
      // best effort
    }
  }
}
