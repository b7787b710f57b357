/** The action's side of a check: fetch the stored baseline, run, publish, push the baseline back, fail if asked. */
import * as fs from 'node:fs'
import type { Config } from '../../config/index.js'
import { CheckFailedError } from '../../util/errors.js'
import { checkCommand } from '../../commands/check.js'
import { newCheckId } from '../../util/cancel.js'
import { saveState } from '../../util/runner-files.js'
import { imageRuntimes } from '../../launchers/index.js'
import { State } from '../../types/inputs.js'
import { publish, repository } from '../../report/index.js'
import { createGitHubApi, describeApiError } from '../../tools/github.js'
import type { Logger } from '../../util/log.js'
import {
  defaultBranch,
  discardTreeBaseline,
  fetchBaseline,
  mergeCheck,
  saveBaseline,
  storePath,
  whyNotWrite,
  type BranchStore
} from '../../analyze/index.js'
import { actionsLogger } from '../../util/log.js'

/** The branch store for this run, or null (with the reason logged) when it cannot be used. */
function branchStore(config: Config, workspace: string, logger: Logger): BranchStore | null {
  if (!config.baselineBranch) return null
  const repo = repository()
  if (!repo || !config.githubToken) {
    logger.info(`baseline branch ${config.baselineBranch} not used: no GITHUB_REPOSITORY or github-token`)
    return null
  }
  return {
    api: createGitHubApi({ token: config.githubToken, log: m => logger.info(m) }),
    ...repo,
    branch: config.baselineBranch,
    file: storePath(config.baselinePath, workspace)
  }
}

/** Action: run, then publish (summary, outputs, comment, check run, artifacts); fail the step when asked. */
export async function runCheckAction(config: Config, logger: Logger, workspace: string): Promise<void> {
  // Side channels (the store, the comment, the check run) warn on failure; they never fail the check.
  const store = branchStore(config, workspace, logger)
  // With a baseline branch, the tree's file is never the baseline, even when the branch cannot be used.
  if (config.baselineBranch && !store) discardTreeBaseline(config.baselinePath)
  if (store) {
    try {
      const found = await fetchBaseline(store, config.baselinePath, workspace)
      logger.info(
        found
          ? `baseline fetched from branch ${store.branch} (${store.file})`
          : `no baseline on branch ${store.branch} yet (${store.file}); a push/schedule run with save-baseline: true stores one`
      )
    } catch (error) {
      logger.warn(`baseline not fetched from branch ${store.branch}: ${describeApiError(error)}`)
    }
  }
  // A SIGKILL of this step leaves its containers (one paused by turns among them): the post step finds them
  // by this label (main.ts post), recorded before the first one starts.
  const checkId = newCheckId()
  if (config.arms.some(a => a.kind === 'container')) {
    saveState(State.CheckId, checkId)
    // Every engine an arm runs on (arms may use different launchers: docker:A,podman:B), comma-separated.
    saveState(
      State.ContainerRuntime,
      imageRuntimes(config.arms, config.containerRuntime).join(',') || config.containerRuntime
    )
  }
  const { summary, markdown, gate } = await checkCommand(config, logger, checkId)
  const files = [
    summary.paths.results,
    summary.paths.samples,
    summary.paths.report,
    summary.paths.summary,
    summary.paths.telemetry
  ].filter(f => fs.existsSync(f))
  const result = await publish(summary, markdown, {
    token: config.githubToken,
    comment: config.comment,
    checkRun: config.checkRun,
    failOnRegression: config.failOnRegression,
    files,
    rootDir: config.out
  })
  for (const w of result.warnings) actionsLogger.warn(w)
  if (store && config.saveBaseline && fs.existsSync(config.baselinePath)) {
    try {
      const why = whyNotWrite(
        process.env.GITHUB_EVENT_NAME,
        process.env.GITHUB_REF,
        await defaultBranch(store)
      )
      if (why) logger.info(`baseline not pushed: ${why}`)
      else {
        const pushed = await saveBaseline(
          store,
          config.baselinePath,
          `gpu-overhead baseline: check ${summary.check_id}`,
          (stored, local) => mergeCheck(stored, local, summary.check_id)
        )
        logger.info(
          pushed ? `baseline pushed to branch ${store.branch}` : 'baseline on the branch already up to date'
        )
      }
    } catch (error) {
      logger.warn(`baseline not pushed to branch ${store.branch}: ${describeApiError(error)}`)
    }
  }
  // The same gate as `gpu-overhead run`: an error verdict fails the step too.
  if (gate.failure) throw new CheckFailedError(gate.failure)
}
