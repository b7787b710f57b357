/** Names of the action's outputs (action.yml `outputs:`). */
export const Outputs = {
  Verdict: 'verdict',
  OverheadPct: 'overhead-pct',
  PValue: 'p-value',
  ReportPath: 'report-path',
  ResultsPath: 'results-path',
  CommentUrl: 'comment-url'
} as const
export type OutputName = (typeof Outputs)[keyof typeof Outputs]
