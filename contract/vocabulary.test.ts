import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ACTIONS, FORMER_NAMES, SUBJECTS, actionWords, currentAction, fileStem, isAction, namesOf, subjectOf } from './vocabulary.ts'

/** The server's sources (tests aside). */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f)
    if (statSync(p).isDirectory()) return sources(p)
    return p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : []
  })
}

describe('one vocabulary', () => {
  it('names every action the server records, in the access log and the route table alike', () => {
    const used = new Set<string>()
    const patterns = [
      /reads: '([^']+)'/g,
      /audit\(\s*'([^']+)'/g,
      /auditAs\([^)]*\)\(\s*'([^']+)'/g,
      /\.record\([^;]*?'(signin\.[a-z]+|signout)'/g,
      /\.audit\([^;]*?'(signin\.[a-z]+)'/g,
      /prefetch \? '([^']+)' : '([^']+)'/g,
    ]
    for (const file of sources(join(import.meta.dirname, '..', 'proxy'))) {
      const text = readFileSync(file, 'utf8')
      for (const re of patterns) for (const m of text.matchAll(re)) for (const g of m.slice(1)) if (g) used.add(g)
    }
    // The scan finds the ones it should (a broken pattern must not pass vacuously).
    for (const a of ['search.export', 'access-log.export', 'history.view', 'signin.ok', 'signout', 'index.forget', 'needs-reply.view'])
      expect(used).toContain(a)
    expect([...used].filter((a) => !isAction(a))).toEqual([])
  })

  it('words each action in its own words, from its subject', () => {
    const words = ACTIONS.map(actionWords)
    expect(new Set(words).size).toBe(ACTIONS.length)
    expect(actionWords('search.export')).toBe('Search results: exported')
    expect(actionWords('access-log.export')).toBe('Access log: exported')
    for (const a of ACTIONS) expect(actionWords(a).startsWith(SUBJECTS[subjectOf(a)])).toBe(true)
  })

  it('reads the names written before it under the action they became, and finds them by it', () => {
    for (const [old, now] of Object.entries(FORMER_NAMES)) {
      expect(isAction(old)).toBe(false)
      expect(isAction(now)).toBe(true)
      expect(currentAction(old)).toBe(now)
      expect(actionWords(old)).toBe(actionWords(now))
      expect(namesOf(now)).toContain(old)
    }
    expect(namesOf('search.export').sort()).toEqual(['export', 'search.export'])
    expect(actionWords('made.up')).toBe('made.up')
  })

  it('names export files by the subject the access log names the export by', () => {
    const exports = ACTIONS.filter((a) => a.endsWith('.export'))
    expect(exports.map((a) => fileStem(subjectOf(a))).sort()).toEqual(
      [
        'switchboard-access-log',
        'switchboard-history',
        'switchboard-needs-reply',
        'switchboard-opt-outs',
        'switchboard-quiet-hours',
        'switchboard-search',
        'switchboard-sent-after-opt-out',
      ].sort(),
    )
  })
})
