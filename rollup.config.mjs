// Two self-contained ESM bundles: the action entry and the CLI.
import { writeFileSync } from 'node:fs'
import commonjs from '@rollup/plugin-commonjs'
import json from '@rollup/plugin-json'
import { nodeResolve } from '@rollup/plugin-node-resolve'
import terser from '@rollup/plugin-terser'
import typescript from '@rollup/plugin-typescript'
import license from 'rollup-plugin-license'
import { licensesText } from './scripts/licenses.mjs'

// dist/licenses.txt: the union of both bundles' packages, rewritten after each (scripts/licenses.mjs).
const LICENSES_FILE = 'dist/licenses.txt'
const bundled = new Map()
function writeLicenses(dependencies) {
  for (const d of dependencies) bundled.set(`${d.name}@${d.version}`, d)
  writeFileSync(LICENSES_FILE, licensesText([...bundled.values()]))
}

const plugins = () => [
  typescript({ tsconfig: './tsconfig.build.json' }),
  nodeResolve({ preferBuiltins: true, exportConditions: ['node'] }),
  commonjs(),
  json(),
  license({ thirdParty: { includePrivate: false, multipleVersions: true, output: writeLicenses } }),
  // Compressed and mangled: the bundle
  // must stay small enough to ship to GPU hosts with the repository.
  terser({ compress: { passes: 1 }, mangle: true, format: { comments: false } })
]

// Known, harmless warnings from bundled dependencies; anything else fails the build.
const onwarn = warning => {
  if (warning.code === 'CIRCULAR_DEPENDENCY' && /node_modules/.test(warning.message)) return
  if (warning.code === 'THIS_IS_UNDEFINED') return
  // Misplaced /*@__PURE__*/ hints inside dependencies (zod): rollup drops them, nothing else changes.
  if (warning.code === 'INVALID_ANNOTATION' && /node_modules/.test(warning.id ?? '')) return
  // A dependency that does not resolve would become a bare import of a package the runner does not have
  // (the bundle must be self-contained): fail, as for every other warning.
  throw new Error(`rollup: ${warning.code ?? 'warning'}: ${warning.message}`)
}

export default [
  {
    input: 'src/entry/action/index.ts',
    output: { file: 'dist/index.js', format: 'es', inlineDynamicImports: true },
    plugins: plugins(),
    onwarn
  },
  {
    input: 'src/entry/cli/index.ts',
    output: { file: 'dist/cli.js', format: 'es', banner: '#!/usr/bin/env node', inlineDynamicImports: true },
    plugins: plugins(),
    onwarn
  }
]
