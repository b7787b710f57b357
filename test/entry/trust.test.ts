import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { checkEventTrust } from '../../src/entry/action/trust.js'

function event(payload: unknown): string {
  const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ev-')), 'event.json')
  fs.writeFileSync(f, JSON.stringify(payload))
  return f
}
const pr = (head: string, fork: boolean): unknown => ({
  pull_request: { head: { repo: { full_name: head, fork } }, base: { repo: { full_name: 'org/repo' } } }
})

describe('fork pull requests on self-hosted runners', () => {
  it('refuses a fork PR by default, with the reason and the opt-in', () => {
    const d = checkEventTrust(
      { GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: event(pr('evil/repo', true)) },
      false
    )
    expect(d.refuse).toMatch(/fork pull request \(evil\/repo, event pull_request\).*allow-fork-prs: true/)
  })
  it('allows it only with allow-fork-prs, and warns', () => {
    const d = checkEventTrust(
      { GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: event(pr('evil/repo', true)) },
      true
    )
    expect(d.refuse).toBeNull()
    expect(d.warnings.join()).toMatch(/allow-fork-prs is true/)
  })
  it('runs same-repository PRs and pushes', () => {
    expect(
      checkEventTrust(
        { GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: event(pr('org/repo', false)) },
        false
      ).refuse
    ).toBeNull()
    expect(checkEventTrust({ GITHUB_EVENT_NAME: 'push' }, false).refuse).toBeNull()
  })
  it('treats a deleted head repository or an unreadable payload as untrusted', () => {
    const gone = { pull_request: { head: { repo: null }, base: { repo: { full_name: 'org/repo' } } } }
    expect(
      checkEventTrust({ GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: event(gone) }, false).refuse
    ).toMatch(/refusing/)
    expect(
      checkEventTrust({ GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: '/nope' }, false).refuse
    ).toMatch(/cannot read/)
  })
  it("a fork's config-file commands: refused with the fork, named; with allow-fork-prs they run, warned", () => {
    const env = { GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: event(pr('evil/repo', true)) }
    const refused = checkEventTrust(env, false, ['mine', 'theirs'])
    expect(refused.refuse).toMatch(
      /its code and its config file's commands \(mine, theirs\) would run on this machine.*allow-fork-prs: true/
    )
    const allowed = checkEventTrust(env, true, ['mine'])
    expect(allowed.refuse).toBeNull()
    expect(allowed.warnings.join('\n')).toMatch(
      /its config file's commands \(mine\) run as the fork wrote them, because allow-fork-prs and allow-config-commands are true/
    )
    // The same repository's config-file commands: no fork, nothing to say.
    const same = { GITHUB_EVENT_NAME: 'pull_request', GITHUB_EVENT_PATH: event(pr('org/repo', false)) }
    expect(checkEventTrust(same, false, ['mine'])).toEqual({ refuse: null, warnings: [] })
  })
  it('warns loudly under pull_request_target', () => {
    const d = checkEventTrust(
      { GITHUB_EVENT_NAME: 'pull_request_target', GITHUB_EVENT_PATH: event(pr('org/repo', false)) },
      false
    )
    expect(d.warnings.join()).toMatch(/pull_request_target/)
  })
})
