/**
 * Where the baseline lives between workflow runs: a dedicated branch of the repository (input
 * `baseline-branch`, default `gpu-overhead-baseline`), written only by trusted runs (push, schedule, manual: the
 * default-branch job with `save-baseline: true` and `contents: write`) and read by every run, pull requests
 * included (`contents: read`). Checkout resets the workspace, and a PR's own tree is untrusted, so the
 * baseline is fetched into `baseline-path` before the check and pushed back after it. The file's contents and
 * format belong to analyze/baseline; this module only moves bytes, through tools/github (retry, proxy, timeout).
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { apiStatus, type GitHubApi } from '../../tools/github.js'
import { READ_LIMITS, readUntrusted, safeReplace } from '../../util/safe-fs.js'

/** A concurrent writer moved the file between our read and our write: read again, merge again, this often. */
const MAX_WRITE_ATTEMPTS = 6
/** Base of the jittered wait between two attempts. */
const RETRY_BASE_MS = 250

export interface BranchStore {
  api: GitHubApi
  owner: string
  repo: string
  branch: string
  /** The file's path in the branch: baseline-path relative to the workspace. */
  file: string
}

interface ContentsAnswer {
  sha?: unknown
  content?: unknown
  encoding?: unknown
}

const CONTENTS = '/repos/{owner}/{repo}/contents/{path}'

/**
 * Events whose code is the repository's own history, not a proposal: they may write the store, and only
 * on the default branch (a push to any other branch, or a merge queue's candidate, is not yet history).
 */
const WRITING_EVENTS = new Set(['push', 'schedule', 'workflow_dispatch'])

/** Null when this run may write the store; else why not. */
export function whyNotWrite(
  eventName: string | undefined,
  ref: string | undefined,
  defaultBranch: string
): string | null {
  if (!WRITING_EVENTS.has(eventName ?? ''))
    return `${eventName || 'this'} event never writes the store (push, schedule or workflow_dispatch on ${defaultBranch} do)`
  if (ref !== `refs/heads/${defaultBranch}`)
    return `${ref ?? 'this ref'} is not the default branch ${defaultBranch}; only its runs write the store`
  return null
}

/** The repository's default branch (GET /repos/{owner}/{repo}). */
export async function defaultBranch(store: Pick<BranchStore, 'api' | 'owner' | 'repo'>): Promise<string> {
  const meta = (
    await store.api.request('GET /repos/{owner}/{repo}', { owner: store.owner, repo: store.repo })
  ).data as { default_branch?: unknown }
  if (typeof meta.default_branch !== 'string' || meta.default_branch === '')
    throw new Error('GET /repos/{owner}/{repo} named no default branch')
  return meta.default_branch
}

/**
 * Removes the baseline the checked-out tree holds at `localFile`: with a baseline branch, the branch is
 * the only source, and a pull request's own file must never stand in for it (fail closed: a branch that
 * cannot be read means no stored baseline). Unlinking never follows a link; a folder there is left for
 * config's check to refuse.
 */
export function discardTreeBaseline(localFile: string): void {
  try {
    if (!fs.lstatSync(localFile).isDirectory()) fs.unlinkSync(localFile)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
}

/** The branch store's file path for a baseline-path inside the workspace (forward slashes, no `..`). */
export function storePath(baselinePath: string, workspace: string): string {
  const rel = path.relative(workspace, baselinePath)
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel))
    throw new Error(`baseline-path ${baselinePath} is not inside the workspace ${workspace}`)
  return rel.split(path.sep).join('/')
}

async function readRemote(store: BranchStore): Promise<{ sha: string; text: string } | null> {
  const where = { owner: store.owner, repo: store.repo, path: store.file, ref: store.branch }
  let answer: ContentsAnswer
  try {
    answer = (await store.api.request(`GET ${CONTENTS}`, where)).data as ContentsAnswer
  } catch (error) {
    if (apiStatus(error) === 404) return null // no branch yet, or no file on it
    throw error
  }
  if (typeof answer.sha !== 'string') throw new Error(`GET ${CONTENTS} answered without a file (sha)`)
  if (answer.encoding === 'base64' && typeof answer.content === 'string' && answer.content !== '')
    return { sha: answer.sha, text: Buffer.from(answer.content, 'base64').toString('utf8') }
  // Over 1 MB the contents API leaves `content` empty: the blob API serves up to 100 MB.
  const blob = (
    await store.api.request('GET /repos/{owner}/{repo}/git/blobs/{file_sha}', {
      owner: store.owner,
      repo: store.repo,
      file_sha: answer.sha
    })
  ).data as ContentsAnswer
  if (blob.encoding !== 'base64' || typeof blob.content !== 'string')
    throw new Error(`GET /repos/{owner}/{repo}/git/blobs/{file_sha} answered without base64 content`)
  return { sha: answer.sha, text: Buffer.from(blob.content, 'base64').toString('utf8') }
}

/** Copies the stored baseline into `localFile` (no link followed under `root`). False when none is stored yet. */
export async function fetchBaseline(store: BranchStore, localFile: string, root: string): Promise<boolean> {
  discardTreeBaseline(localFile)
  const remote = await readRemote(store)
  if (!remote) return false
  safeReplace(localFile, remote.text, { root })
  return true
}

/** Creates the branch from the default branch's head when it does not exist. */
async function ensureBranch(store: BranchStore): Promise<void> {
  const repo = { owner: store.owner, repo: store.repo }
  try {
    await store.api.request('GET /repos/{owner}/{repo}/branches/{branch}', { ...repo, branch: store.branch })
    return
  } catch (error) {
    if (apiStatus(error) !== 404) throw error
  }
  const head = (
    await store.api.request('GET /repos/{owner}/{repo}/git/ref/{ref}', {
      ...repo,
      ref: `heads/${await defaultBranch(store)}`
    })
  ).data as { object?: { sha?: unknown } }
  if (typeof head.object?.sha !== 'string')
    throw new Error('GET /repos/{owner}/{repo}/git/ref/{ref} named no commit')
  try {
    await store.api.request('POST /repos/{owner}/{repo}/git/refs', {
      ...repo,
      ref: `refs/heads/${store.branch}`,
      sha: head.object.sha
    })
  } catch (error) {
    // Another job created it since: that is the branch we want.
    if (apiStatus(error) !== 422) throw error
  }
}

/**
 * Adds this run's check to the stored file as one commit (creating the branch when needed): read the
 * stored file and its version (sha), lay `merge(stored, local)` onto it, write with that sha. A write that
 * lost a race with another job (409/422: the sha moved) reads and merges again, so no job's check is lost;
 * a read that fails writes nothing. Returns false when the stored file already holds the result.
 */
export async function saveBaseline(
  store: BranchStore,
  localFile: string,
  message: string,
  merge: (stored: string | null, local: string) => string,
  sleep: (ms: number) => Promise<void> = ms => new Promise(r => setTimeout(r, ms))
): Promise<boolean> {
  const local = readUntrusted(localFile, { maxBytes: READ_LIMITS.baseline, noFollow: true })
  await ensureBranch(store)
  for (let attempt = 1; ; attempt++) {
    const remote = await readRemote(store)
    const text = merge(remote?.text ?? null, local)
    if (remote?.text === text) return false
    try {
      await store.api.request(`PUT ${CONTENTS}`, {
        owner: store.owner,
        repo: store.repo,
        path: store.file,
        branch: store.branch,
        message,
        content: Buffer.from(text, 'utf8').toString('base64'),
        ...(remote ? { sha: remote.sha } : {})
      })
      return true
    } catch (error) {
      const status = apiStatus(error)
      if (attempt >= MAX_WRITE_ATTEMPTS || (status !== 409 && status !== 422)) throw error
      await sleep(RETRY_BASE_MS * attempt * (0.5 + Math.random()))
    }
  }
}
