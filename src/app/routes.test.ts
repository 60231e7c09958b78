import { describe, expect, it } from 'vitest'
import { matchRoute } from './routes'

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
