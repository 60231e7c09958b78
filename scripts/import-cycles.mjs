// `node scripts/import-cycles.mjs`: fails when the production code's static imports go round in a
// circle, type-only imports included. ESLint's import-x/no-cycle (in `npm run lint` too) skips
// `import type`, so two files that name each other's types passed it; a circle of types still
// ties two rooms together. An `import()` is not followed: a module fetched later (the measuring
// table engine) may register itself with the one that fetches it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const DIRS = ['src', 'proxy', 'contract']
const SKIP = /(\.test\.tsx?|\.spec\.tsx?|\.d\.ts)$|\/testing\//

/** Every production TypeScript file under the three trees. */
function filesUnder(dir) {
  const out = []
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) out.push(...filesUnder(p))
    else if (/\.tsx?$/.test(name) && !SKIP.test(p)) out.push(p)
  }
  return out
}

/** The relative modules a file imports or re-exports statically (`import … from`, `export … from`, `import '…'`). */
function importsOf(file) {
  const text = readFileSync(file, 'utf8')
  const out = []
  const re = /^\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm
  for (const m of text.matchAll(re)) {
    const target = resolve(dirname(file), m[1])
    const found = [target, `${target}.ts`, `${target}.tsx`, join(target, 'index.ts')].find((p) => existsSync(p) && statSync(p).isFile())
    if (found && /\.tsx?$/.test(found) && !SKIP.test(found)) out.push(found)
  }
  return out
}

const files = DIRS.flatMap((d) => filesUnder(join(ROOT, d)))
const graph = new Map(files.map((f) => [f, importsOf(f)]))

// Tarjan's strongly connected components: every component of more than one file is a circle.
let index = 0
const stack = []
const on = new Set()
const idx = new Map()
const low = new Map()
const circles = []
function visit(v) {
  idx.set(v, index)
  low.set(v, index++)
  stack.push(v)
  on.add(v)
  for (const w of graph.get(v) ?? []) {
    if (!idx.has(w)) {
      visit(w)
      low.set(v, Math.min(low.get(v), low.get(w)))
    } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)))
  }
  if (low.get(v) === idx.get(v)) {
    const component = []
    let w
    do {
      w = stack.pop()
      on.delete(w)
      component.push(w)
    } while (w !== v)
    if (component.length > 1) circles.push(component)
  }
}
for (const f of files) if (!idx.has(f)) visit(f)

if (circles.length > 0) {
  for (const c of circles) console.error(`import circle (type-only imports included): ${c.map((f) => relative(ROOT, f)).join(' ↔ ')}`)
  console.error('Move what both sides need into a module below them both.')
  process.exit(1)
}
console.log(`import-cycles: ${files.length} files, no circle`)
