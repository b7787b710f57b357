/**
 * A block of the report: each renderer (the *-section.ts modules) turns a CheckSummary into one or more.
 * `core` blocks are kept (shortened last), `chart` and `raw` blocks are dropped first when the report must
 * fit a size limit. `group` is a heading printed before the first block of it.
 */
export interface Section {
  id: string
  kind: 'verdict' | 'core' | 'chart' | 'raw'
  title: string
  group?: string
  body: string
  /**
   * A few lines for the compact PR comment (report/comment-body.ts), when the section has something a reviewer
   * must see there (e.g. the explainer's "why the arms differ"). Sections without one stay in the job summary.
   */
  short?: string
}
