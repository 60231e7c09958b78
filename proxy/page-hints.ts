import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { matchPage, PAGES } from '../contract/pages.ts'

/**
 * The first page's code, named in the app shell's `Link` header: a history opened from a link
 * (or reloaded) downloads its page chunk beside the entry chunk, instead of after the entry has
 * arrived, been evaluated and rendered once (a whole round trip and more on a phone's link).
 * Chromium reads `rel=modulepreload` in a Link header as it does in the HTML; the later
 * `import()` takes the preloaded module, with no second request. The names come from Vite's
 * build manifest (dist/.vite/manifest.json, `build.manifest` in vite.config.ts); the pages, their
 * paths and modules from contract/pages.ts, the table the browser's route tree is built from. The numbers list is in the entry chunk: no header.
 */

interface ManifestChunk {
  file: string
  imports?: string[]
  isEntry?: boolean
}
export type Manifest = Record<string, ManifestChunk>

/** The Link header value for each route that loads a page on demand. */
export function pageHints(manifest: Manifest): Map<string, string> {
  const closure = (key: string, seen = new Set<string>()): Set<string> => {
    const chunk = manifest[key]
    if (!chunk || seen.has(key)) return seen
    seen.add(key)
    for (const i of chunk.imports ?? []) closure(i, seen)
    return seen
  }
  // The entry and what it imports statically are already in the HTML (script and modulepreload).
  const inHtml = new Set<string>()
  for (const [key, chunk] of Object.entries(manifest)) if (chunk.isEntry) closure(key, inHtml)
  const hints = new Map<string, string>()
  for (const [route, page] of Object.entries(PAGES)) {
    const module = 'module' in page ? page.module : undefined
    if (!module || !manifest[module]) continue
    // The page's own chunk first, then what it imports; only JavaScript (a page's CSS, the charts
    // page's alone, is left to Vite's loader).
    const files = [...closure(module)].filter((k) => !inHtml.has(k)).map((k) => manifest[k]!.file)
    if (files.length) hints.set(route, files.map((f) => `</${f}>; rel=modulepreload`).join(', '))
  }
  return hints
}

/**
 * Reads dist/.vite/manifest.json; an empty map (no hints, nothing else changes) when the build
 * has none or it cannot be read.
 */
export function readPageHints(distDir: string, log: (line: string) => void): Map<string, string> {
  let text: string
  try {
    text = readFileSync(join(distDir, '.vite', 'manifest.json'), 'utf8')
  } catch {
    return new Map()
  }
  try {
    return pageHints(JSON.parse(text) as Manifest)
  } catch (err) {
    log(`static: ignoring dist/.vite/manifest.json (${(err as Error).message}); pages load without preload hints`)
    return new Map()
  }
}

/** The Link header for a request of the app shell at this URL, if its page loads on demand. */
export function hintFor(hints: Map<string, string>, url: string | undefined): string | undefined {
  if (!hints.size || !url) return undefined
  const q = url.indexOf('?')
  const page = matchPage(q === -1 ? url : url.slice(0, q))
  return page === null ? undefined : hints.get(page)
}
