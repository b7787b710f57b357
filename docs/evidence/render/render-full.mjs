// Render a GitHub-flavoured markdown file (tables, <details>, Mermaid blocks) to a PNG with headless Chromium,
// so a report can be looked at the way a reviewer sees it. Usage: node render.mjs IN.md OUT.png [HEIGHT_PX]
// HEIGHT_PX (default 9000) is the page height captured: raise it for long reports (the PNG ends where it ends).
import fs from 'node:fs'; import path from 'node:path'; import { execFileSync } from 'node:child_process'
import MarkdownIt from 'markdown-it'
const [, , inFile, outFile, heightArg] = process.argv
const height = Number(heightArg ?? 9000)
const here = path.dirname(new URL(import.meta.url).pathname)
const md = new MarkdownIt({ html: true, linkify: true })
const fence = md.renderer.rules.fence
md.renderer.rules.fence = (t, i, o, e, s) => t[i].info.trim() === 'mermaid'
  ? `<pre class="mermaid">${md.utils.escapeHtml(t[i].content)}</pre>` : fence(t, i, o, e, s)
const body = md.render(fs.readFileSync(inFile, 'utf8'))
const css = fs.readFileSync(path.join(here, 'node_modules/github-markdown-css/github-markdown-light.css'), 'utf8')
const html = `<!doctype html><html><head><meta charset="utf-8"><style>${css} body{margin:0} .markdown-body{box-sizing:border-box;max-width:1012px;margin:0 auto;padding:32px}</style></head>
<body><article class="markdown-body">${body}</article>
<script src="file://${path.join(here, 'node_modules/mermaid/dist/mermaid.min.js')}"></script>
<script>document.querySelectorAll('details').forEach(d=>d.open=true);mermaid.initialize({startOnLoad:false});mermaid.run().then(()=>{document.title='done';document.body.setAttribute('data-h',Math.ceil(document.querySelector('article').getBoundingClientRect().bottom))},e=>{document.title='done';document.body.insertAdjacentHTML('afterbegin','<p style="color:red">MERMAID ERROR: '+e+'</p>')})</script></body></html>`
const tmp = path.join('/tmp', 'render-' + process.pid + '.html'); fs.writeFileSync(tmp, html)
const ud = fs.mkdtempSync('/tmp/chr-')
const common = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', `--user-data-dir=${ud}`, '--allow-file-access-from-files', '--virtual-time-budget=5000', '--window-size=1100,400']
const dom = execFileSync('chromium', [...common, '--dump-dom', `file://${tmp}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
const measured = Number(/data-h="(\d+)"/.exec(dom)?.[1] ?? 0)
const full = heightArg ? height : Math.max(200, measured + 8)
execFileSync('chromium', ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', `--user-data-dir=${ud}`, '--allow-file-access-from-files', '--virtual-time-budget=5000',
  `--window-size=1100,${full}`, `--screenshot=${path.resolve(outFile)}`, `file://${tmp}`], { stdio: 'ignore' })
console.log(outFile, full + 'px')
