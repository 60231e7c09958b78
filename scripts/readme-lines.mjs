// `node scripts/readme-lines.mjs`: fails when README.md is over 200 lines. The README says what
// Switchboard is, how to start and test it and how the parts fit; detail belongs in docs/.
import { readFileSync } from 'node:fs'

const MAX = 200
const lines = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  .replace(/\n$/, '')
  .split('\n').length
if (lines > MAX) {
  console.error(`README.md is ${lines} lines, over ${MAX}: move detail to docs/ and link it.`)
  process.exit(1)
}
