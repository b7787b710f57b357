// dist/licenses.txt from rollup-plugin-license's list of bundled packages (rollup.config.mjs): terser strips
// the packages' own comments, license headers among them, so the licenses ship beside the bundles. Packages
// with the same license text share one copy of it (243 packages, 108 distinct texts); sorted, so a rebuild
// is byte-identical.
const RULE = `\n${'-'.repeat(80)}\n\n`
const HEAD = 'Third-party software bundled in dist/index.js and dist/cli.js, and its licenses.\n'

/** `dependencies`: rollup-plugin-license's Dependency objects (name, version, license, licenseText). */
export function licensesText(dependencies) {
  const byText = new Map()
  for (const d of dependencies) {
    const text =
      (d.licenseText ?? '').trim() ||
      `(no license file in the package; its package.json declares ${d.license ?? 'none'})`
    const names = byText.get(text) ?? new Set()
    names.add(`${d.name}@${d.version} (${d.license ?? 'UNKNOWN'})`)
    byText.set(text, names)
  }
  const entries = [...byText].map(([text, names]) => [[...names].sort(), text])
  entries.sort((a, b) => (a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : 0))
  return [HEAD, ...entries.map(([names, text]) => `${names.join('\n')}\n\n${text}\n`)].join(RULE)
}
