// The migrated PGlite template the tests copy (proxy/db/pglite-template.ts), made once before
// vitest's workers start, so that they do not each make their own in a fresh clone.
import { ensurePgliteTemplate } from '../proxy/db/pglite-template.ts'

const t0 = performance.now()
const dir = await ensurePgliteTemplate()
console.log(`PGlite template ready in ${Math.round(performance.now() - t0)} ms: ${dir}`)
