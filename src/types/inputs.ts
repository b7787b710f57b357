/** Action input names (action.yml) — also the YAML config keys and the CLI flag names (`--<name>`). */
export enum Inputs {
  Image = 'image',
  Workloads = 'workloads',
  Runs = 'runs',
  MaxRuns = 'max-runs',
  TimeBudget = 'time-budget',
  WarmupRuns = 'warmup-runs',
  Device = 'device',
  GpuAccess = 'gpu-access',
  Gpus = 'gpus',
  ContainerRuntime = 'container-runtime',
  Arms = 'arms',
  MaxOverhead = 'max-overhead',
  Alpha = 'alpha',
  BaselinePath = 'baseline-path',
  SaveBaseline = 'save-baseline',
  BaselineBranch = 'baseline-branch',
  DataPath = 'data-path',
  CheckpointPath = 'checkpoint-path',
  GithubToken = 'github-token',
  Comment = 'comment',
  CheckRun = 'check-run',
  FailOnRegression = 'fail-on-regression',
  OnInconclusive = 'on-inconclusive',
  AllowForkPrs = 'allow-fork-prs',
  Out = 'out',
  Config = 'config',
  Schedule = 'schedule',
  GpuLayout = 'gpu-layout',
  Seed = 'seed',
  RunTimeout = 'run-timeout',
  Telemetry = 'telemetry',
  Strict = 'strict',
  DriverMount = 'driver-mount',
  MatmulSize = 'matmul-size',
  MatmulDtype = 'matmul-dtype',
  LlmPreset = 'llm-preset',
  CheckpointMb = 'checkpoint-mb',
  GateIoThroughput = 'gate-io-throughput',
  GateMetrics = 'gate-metrics',
  Prestart = 'prestart',
  Turns = 'turns',
  Python = 'python',
  ContainerMemory = 'container-memory',
  ContainerArgs = 'container-args',
  Commands = 'commands',
  AllowConfigCommands = 'allow-config-commands',
  CommandFormats = 'command-formats',
  PowerCaps = 'power-caps',
  Mode = 'mode',
  AggregateDirs = 'aggregate-dirs',
  TrendMetrics = 'trend-metrics',
  TrendIssues = 'trend-issues',
  Results = 'results',
  ResultsFormat = 'results-format'
}

export enum Outputs {
  Verdict = 'verdict',
  OverheadPct = 'overhead-pct',
  PValue = 'p-value',
  ReportPath = 'report-path',
  ResultsPath = 'results-path',
  Comparisons = 'comparisons'
}

/** Action state shared between the main step and its post step. */
export enum State {
  IsPost = 'is-post',
  PowerRestoreFile = 'power-restore-file',
  /** The check's container label (its check id) and runtime: the post step removes what a killed main step left. */
  CheckId = 'check-id',
  ContainerRuntime = 'container-runtime'
}

export const DEFAULT_CONFIG_FILE = 'gpu-overhead.yml'
export const DEFAULT_BASELINE_PATH = '.github/gpu-overhead/baseline.json'
/** The action's baseline store between runs (entry/action/baseline-branch.ts). */
export const DEFAULT_BASELINE_BRANCH = 'gpu-overhead-baseline'
