// `node scripts/function-lengths.mjs [N] [dirs…]`: the longest functions in the source, by lines
// from their first to their last line (function declarations, expressions, arrows and methods),
// found with the TypeScript parser so that nothing is guessed from indentation. Tests are left
// out. Prints the top N (10 by default) of src/ and proxy/, or of the directories named.
// The limits themselves are held by ESLint's max-lines-per-function in eslint.config.js (150, and
// 80 in proxy/index/sync/), which counts the same lines; this lists how close each function is.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'

const root = process.cwd()
const args = process.argv.slice(2)
const top = /^\d+$/.test(args[0] ?? '') ? Number(args.shift()) : 10
const dirs = args.length ? args : ['src', 'proxy']

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) yield* files(p)
    else if (/\.(ts|tsx|mts)$/.test(name) && !/\.(test|spec)\.tsx?$/.test(name) && !name.endsWith('.d.ts')) yield p
  }
}

/** A readable name: the declaration's own, else the variable, property or call it sits in. */
function nameOf(node) {
  if (node.name) return node.name.getText()
  const parent = node.parent
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText()
  if (ts.isCallExpression(parent)) return `${parent.expression.getText().slice(0, 40)}(…)`
  return '(anonymous)'
}

const found = []
for (const dir of dirs)
  for (const file of files(join(root, dir))) {
    const text = readFileSync(file, 'utf8')
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS)
    const visit = (node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line
        const last = source.getLineAndCharacterOfPosition(node.end).line
        found.push({ lines: last - first + 1, file: relative(root, file), line: first + 1, name: nameOf(node) })
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }

found.sort((a, b) => b.lines - a.lines)
for (const f of found.slice(0, top)) console.log(`${String(f.lines).padStart(5)}  ${f.file}:${f.line}  ${f.name}`)
