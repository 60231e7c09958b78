import { describe, expect, it } from 'vitest'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { matchPage, PAGES } from './pages.ts'

describe('matchPage', () => {
  it('matches every page', () => {
    expect(matchPage('/')).toBe('numbers')
    expect(matchPage('/numbers/18323232323')).toBe('history')
    expect(matchPage('/numbers/18323232323/')).toBe('history')
    expect(matchPage('/numbers/18323232323/thread')).toBe('thread')
    expect(matchPage('/numbers/18323232323/messages/1500')).toBe('message')
    expect(matchPage('/search')).toBe('search')
    expect(matchPage('/charts')).toBe('charts')
    expect(matchPage('/index')).toBe('index')
    expect(matchPage('/admin/access-log')).toBe('access-log')
    expect(matchPage('/desk/quiet-hours')).toBe('quiet-hours')
  })
  it('refuses what it does not know, and bad escapes', () => {
    expect(matchPage('/numbers/%zz')).toBeNull()
    expect(matchPage('/numbers/1/messages/x')).toBeNull()
    expect(matchPage('/numbers/1/messages/1234567890123456')).toBeNull()
    expect(matchPage('/numbers')).toBeNull()
    expect(matchPage('/nope')).toBeNull()
  })
})

describe('PAGES modules', () => {
  // The server's Link header names these modules' chunks (proxy/page-hints.ts): each must be a page
  // the route tree really loads on demand, or the header would preload code the page never runs.
  const root = fileURLToPath(new URL('..', import.meta.url))
  const tree = readFileSync(join(root, 'src/app/routes.tsx'), 'utf8')
  const lazy = Object.entries(PAGES).flatMap(([name, page]) => ('module' in page ? [[name, page.module] as const] : []))
  it.each(lazy)('%s: %s is a lazily imported page', (_name, module) => {
    expect(existsSync(join(root, module))).toBe(true)
    expect(tree).toContain(`lazyRouteComponent(() => import('../${module.replace(/^src\//, '').replace(/\.tsx$/, '')}')`)
  })
  it('names no page that the entry chunk holds', () => {
    expect('module' in PAGES.numbers).toBe(false)
    expect(tree).toMatch(/^import \{ NumbersPage \} from '\.\.\/features\/numbers\/numbers-page'$/m)
  })
  it('gives each page its path from this table', () => {
    for (const name of Object.keys(PAGES)) {
      const key = /^[a-z]+$/.test(name) ? `PAGES.${name}.path` : `PAGES['${name}'].path`
      expect(tree).toContain(`path: ${key},`)
    }
  })
})
