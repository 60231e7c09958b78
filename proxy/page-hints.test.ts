import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { hintFor, pageHints, readPageHints, type Manifest } from './page-hints.ts'

// The shape Vite 8 writes to dist/.vite/manifest.json (trimmed to the fields read).
const manifest: Manifest = {
  'index.html': { file: 'assets/index-A.js', isEntry: true, imports: ['_runtime-R.js', '_client-C.js'] },
  '_runtime-R.js': { file: 'assets/runtime-R.js' },
  '_client-C.js': { file: 'assets/client-C.js', imports: ['_runtime-R.js'] },
  '_dates-D.js': { file: 'assets/dates-D.js' },
  '_badge-B.js': { file: 'assets/badge-B.js', imports: ['_dates-D.js', 'index.html', '_client-C.js'] },
  'src/features/history/history-page.tsx': {
    file: 'assets/history-page-H.js',
    imports: ['_runtime-R.js', 'index.html', '_badge-B.js', '_dates-D.js'],
  },
  'src/features/search/search-page.tsx': { file: 'assets/search-page-S.js', imports: ['index.html', '_client-C.js'] },
}

describe('pageHints', () => {
  const hints = pageHints(manifest)
  it("names a page's chunk and what it imports, and nothing the HTML already loads", () => {
    expect(hints.get('history')).toBe(
      '</assets/history-page-H.js>; rel=modulepreload, </assets/badge-B.js>; rel=modulepreload, </assets/dates-D.js>; rel=modulepreload',
    )
    expect(hints.get('search')).toBe('</assets/search-page-S.js>; rel=modulepreload')
  })
  it('has nothing for the numbers list (in the entry) nor for a page the build lacks', () => {
    expect(hints.has('numbers')).toBe(false)
    expect(hints.has('thread')).toBe(false)
  })
  it('matches the route of a shell request, query and all, and nothing else', () => {
    expect(hintFor(hints, '/numbers/18323232323?tid=PUHMGWS98301')).toBe(hints.get('history'))
    expect(hintFor(hints, '/search?q=refund')).toBe(hints.get('search'))
    expect(hintFor(hints, '/')).toBeUndefined()
    expect(hintFor(hints, '/numbers/%zz')).toBeUndefined()
    expect(hintFor(hints, '/no/such/page')).toBeUndefined()
    expect(hintFor(hints, undefined)).toBeUndefined()
  })
})

describe('readPageHints', () => {
  it('reads the build manifest, and gives no hints (and a log line) for a missing or broken one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-hints-'))
    const lines: string[] = []
    try {
      expect(readPageHints(dir, (l) => lines.push(l)).size).toBe(0)
      expect(lines).toEqual([])
      mkdirSync(join(dir, '.vite'))
      writeFileSync(join(dir, '.vite', 'manifest.json'), JSON.stringify(manifest))
      expect([...readPageHints(dir, (l) => lines.push(l)).keys()].sort()).toEqual(['history', 'search'])
      writeFileSync(join(dir, '.vite', 'manifest.json'), '{"index.html": ')
      expect(readPageHints(dir, (l) => lines.push(l)).size).toBe(0)
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatch(/ignoring dist\/\.vite\/manifest\.json/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
