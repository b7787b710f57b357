/**
 * One place that turns action inputs, CLI flags and an optional YAML file into a validated Config.
 * Precedence: flags > action inputs > file > defaults. Every error names the input, the bad value and
 * what is allowed (InputError, exit 2). Parsers: parse.ts; defaults: defaults.ts; the file: file.ts; the
 * settings in groups: check-settings.ts.
 */
import * as fs from 'node:fs'
import * as path from 'node:path'
import { DEFAULT_CONFIG_FILE, Inputs } from '../types/inputs.js'
import { InputError } from '../util/errors.js'
import { DEVICES, type CommandWorkload } from '../types/index.js'
import type { Config } from './check-config.js'
import { validateImageRef, type ImageRef } from './image-ref.js'
import { commandWorkloads, fileCommandWorkloads, mergeCommands } from './commands.js'
import { resolveWorkloads, type WorkloadDefinition } from './workloads/index.js'
import { readConfigFile, type ConfigFileContents } from './file.js'
import { bool, given, integer, list, oneOf, parseArmsWithImages } from './parse.js'
import { validatePython } from './trusted-values.js'
import { MOUNT_SPLITTERS, NO_SPLITTERS, safePath } from './paths.js'
import { inputReader, sourcesReader, type ConfigSources, type InputReader } from './reader.js'
import { selectWorkloads } from './workload-select.js'
import {
  baselineAndMounts,
  gpuAccessOf,
  launch,
  limits,
  outFolder,
  powerCapsOf,
  publishing,
  runCounts,
  runtimeOf,
  scheduling,
  workloadSettings,
  type SettingsContext
} from './check-settings.js'

interface ConfigFileChoice {
  configFile: string | null
  allowConfigCommands: boolean
  contents: ConfigFileContents
}

/** The config file (named, or gpu-overhead.yml when present) and whether its commands are honoured. */
function configFileOf(sources: ConfigSources): ConfigFileChoice {
  const { workspace } = sources
  const flags = sources.flags ?? {}
  const inputs = sources.inputs ?? {}
  const configArg = flags[Inputs.Config] ?? inputs[Inputs.Config]
  let configFile: string | null = null
  if (given(configArg)) configFile = safePath(Inputs.Config, configArg, workspace)
  else if (fs.existsSync(path.join(workspace, DEFAULT_CONFIG_FILE)))
    configFile = path.join(workspace, DEFAULT_CONFIG_FILE)
  // A trust setting: from the workflow or the CLI only (the file cannot name it: not a knob).
  const allowConfigCommands = bool(
    Inputs.AllowConfigCommands,
    sourcesReader(sources).get(Inputs.AllowConfigCommands)
  )
  // The tree's file must stay in the tree; a file the CLI user names may live anywhere.
  const contents = configFile
    ? readConfigFile(configFile, sources.outputsAnywhere ? undefined : workspace, {
        allowCommands: allowConfigCommands
      })
    : { knobs: {}, commands: [] }
  return { configFile, allowConfigCommands, contents }
}

interface WorkloadChoice {
  imageRef: ImageRef | null
  commands: CommandWorkload[]
  overriddenCommands: string[]
  workloads: string[]
  definitions: WorkloadDefinition[]
}

/** The image, the user's commands (the workflow's over the file's) and the workloads they make. */
function workloadsOf({ get }: InputReader, contents: ConfigFileContents): WorkloadChoice {
  // Not trimmed: validateImageRef refuses any whitespace, so `ubuntu ` is an error, never a silent fix.
  const imageRaw = get(Inputs.Image)
  const imageRef = imageRaw.trim() === '' ? null : validateImageRef(imageRaw, Inputs.Image)
  const { commands, overridden: overriddenCommands } = mergeCommands(
    commandWorkloads(get(Inputs.Commands), get(Inputs.CommandFormats)),
    fileCommandWorkloads(contents.commands)
  )
  const workloads = selectWorkloads(get(Inputs.Workloads), commands)
  return {
    imageRef,
    commands,
    overriddenCommands,
    workloads,
    definitions: resolveWorkloads(workloads, commands)
  }
}

function gpusOf(raw: string): Config['gpus'] {
  const gpusRaw = raw.trim()
  if (gpusRaw.toLowerCase() === 'all') return 'all'
  return list(Inputs.Gpus, gpusRaw).map(g => {
    if (!/^(\d{1,3}|GPU-[0-9a-fA-F-]{36}|MIG-[0-9a-fA-F-]{36})$/.test(g))
      throw new InputError(Inputs.Gpus, g, 'all, or a list of GPU indices (0,1) or UUIDs (GPU-…/MIG-…)')
    return g
  })
}

/** Checks across settings, once all are read. */
function checkAcross(config: Config, read: InputReader): void {
  // Without a data-path/checkpoint-path the io workload's folders live under `out` and are mounted.
  if (
    config.definitions.some(d => d.usesIoFolders) &&
    config.arms.some(a => a.kind === 'container') &&
    (!config.data || !config.checkpoint) &&
    MOUNT_SPLITTERS.test(config.out)
  )
    throw new InputError(Inputs.Out, read.get(Inputs.Out), `a folder path with ${NO_SPLITTERS}`)
  // The interpreter must exist only where it runs: a native arm.
  if (config.arms.some(a => a.kind === 'native')) validatePython(config.python, true)
}

/** Merges the sources by precedence and validates every value. */
export function loadConfig(sources: ConfigSources): Config {
  const { configFile, allowConfigCommands, contents } = configFileOf(sources)
  const read = inputReader([sources.flags ?? {}, sources.inputs ?? {}, contents.knobs])
  const { get } = read
  const work = workloadsOf(read, contents)
  const device = oneOf(Inputs.Device, get(Inputs.Device), DEVICES)
  const gpus = gpusOf(get(Inputs.Gpus))
  const runs = integer(Inputs.Runs, get(Inputs.Runs), 2, 1000)
  const ctx: SettingsContext = { read, sources, device, runs, definitions: work.definitions }
  const containerRuntime = runtimeOf(ctx)
  const { arms, images } = parseArmsWithImages(get(Inputs.Arms), work.imageRef, containerRuntime)
  const config: Config = {
    image: work.imageRef?.ref ?? null,
    images,
    workloads: work.workloads,
    definitions: work.definitions,
    runs,
    ...runCounts(ctx),
    device,
    gpuAccess: gpuAccessOf(ctx),
    gpus,
    containerRuntime,
    arms,
    ...limits(ctx),
    ...baselineAndMounts(ctx),
    ...publishing(ctx),
    ...outFolder(ctx),
    configFile,
    ...scheduling(ctx),
    ...workloadSettings(ctx),
    ...launch(ctx),
    commands: work.commands,
    allowConfigCommands,
    overriddenCommands: work.overriddenCommands,
    powerCaps: powerCapsOf(ctx)
  }
  checkAcross(config, read)
  return config
}
