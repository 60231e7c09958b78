import { describe, expect, it } from 'vitest'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { LAZY_PAGE_MODULES, matchRoute } from './routes.ts'

describe('matchRoute', () => {
  it('matches every page', () => {
    expect(matchRoute('/')).toEqual({ name: 'numbers' })
    expect(matchRoute('/numbers/18323232323')).toEqual({ name: 'history', number: '18323232323' })
    expect(matchRoute('/numbers/18323232323/thread')).toEqual({ name: 'thread', number: '18323232323' })
    expect(matchRoute('/numbers/18323232323/messages/1500')).toEqual({ name: 'message', number: '18323232323', ordinal: 1500 })
    expect(matchRoute('/search')).toEqual({ name: 'search' })
    expect(matchRoute('/charts')).toEqual({ name: 'charts' })
    expect(matchRoute('/index')).toEqual({ name: 'index' })
  })
  it('refuses what it does not know, and bad escapes', () => {
    expect(matchRoute('/numbers/%zz').name).toBe('not-found')
    expect(matchRoute('/numbers/1/messages/x').name).toBe('not-found')
    expect(matchRoute('/nope').name).toBe('not-found')
  })
})

describe('LAZY_PAGE_MODULES', () => {
  // The server's Link header names these modules' chunks (proxy/static.ts): each must be a page
  // that app.tsx really loads on demand, or the header would preload code the page never runs.
  const root = fileURLToPath(new URL('..', import.meta.url))
  const app = readFileSync(join(root, 'src/app/app.tsx'), 'utf8')
  it.each(Object.entries(LAZY_PAGE_MODULES))('%s: %s is a lazily imported page', (_route, module) => {
    expect(existsSync(join(root, module))).toBe(true)
    const fromApp = `../${module.replace(/^src\//, '').replace(/\.tsx$/, '')}`
    const glob = /^src\/features\/access\//.test(module)
    if (glob) expect(app).toContain(`import.meta.glob<Record<string, AnyPage>>('../features/access/*.tsx')`)
    else expect(app).toContain(`import('${fromApp}')`)
  })
  it('names no page that the entry chunk holds', () => {
    expect(LAZY_PAGE_MODULES.numbers).toBeUndefined()
    expect(app).toMatch(/^import \{ NumbersPage \} from '\.\.\/features\/numbers\/numbers-page'$/m)
  })
})
