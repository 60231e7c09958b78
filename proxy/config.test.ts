import { describe, expect, it } from 'vitest'
import { ConfigError, parseConfig } from './config.ts'

describe('parseConfig', () => {
  it('defaults to the simulator on loopback', () => {
    const c = parseConfig({})
    expect(c.upstream.baseUrl).toBeNull()
    expect(c).toMatchObject({ host: '127.0.0.1', port: 5173, timeoutMs: 10_000, historyPageCap: 1000 })
  })
  it('reads a real upstream and strips a trailing slash', () => {
    const c = parseConfig({
      API_BASE_URL: 'https://api.example.com/',
      API_SYS_ID: 'acct',
      API_AUTH_TOKEN: 'tok',
      API_TIMEOUT_MS: '2500',
      PORT: '8080',
    })
    expect(c.upstream).toEqual({ baseUrl: 'https://api.example.com', sysId: 'acct', authToken: 'tok' })
    expect(c.timeoutMs).toBe(2500)
    expect(c.port).toBe(8080)
  })
  it.each([
    [{ API_BASE_URL: 'https://api.example.com', API_SYS_ID: 'a' }, /API_AUTH_TOKEN is required/],
    [{ API_BASE_URL: 'https://api.example.com', API_AUTH_TOKEN: 't' }, /API_SYS_ID is required/],
    [{ API_BASE_URL: 'not a url', API_SYS_ID: 'a', API_AUTH_TOKEN: 't' }, /API_BASE_URL must be an absolute http\(s\) URL/],
    [{ API_BASE_URL: 'ftp://x.example', API_SYS_ID: 'a', API_AUTH_TOKEN: 't' }, /API_BASE_URL/],
    [{ PORT: 'eighty' }, /PORT must be a whole number/],
    [{ PORT: '70000' }, /PORT must be between/],
    [{ API_TIMEOUT_MS: '10s' }, /API_TIMEOUT_MS must be a whole number/],
  ])('fails with one line naming the variable: %j', (env, message) => {
    expect(() => parseConfig(env)).toThrowError(ConfigError)
    expect(() => parseConfig(env)).toThrowError(message)
  })
  it('never puts the token in an error message', () => {
    let message = ''
    try {
      parseConfig({ API_BASE_URL: 'nope', API_SYS_ID: 'a', API_AUTH_TOKEN: 'SENTINEL-TOKEN', PORT: 'SENTINEL-TOKEN' })
    } catch (e) {
      message = String(e)
    }
    // It must have failed (so the check below looks at a real message) without quoting the token.
    expect(message).toMatch(/API_BASE_URL/)
    expect(message).not.toContain('SENTINEL-TOKEN')
  })
  it('reports every problem at once, one line each naming its variable', () => {
    let err: unknown
    try {
      parseConfig({ PORT: 'eighty', HISTORY_PAGE_CAP: '0', SIMULATOR_ACCOUNT: 'huge', API_SYS_ID: 'acct' })
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(ConfigError)
    const lines = (err as ConfigError).message.split('\n')
    expect(lines).toHaveLength(4)
    for (const name of ['PORT', 'HISTORY_PAGE_CAP', 'SIMULATOR_ACCOUNT', 'API_SYS_ID'])
      expect(lines.filter((l) => l.includes(name))).toHaveLength(1)
  })
  it('takes the simulator scenario as a seed, off when unset, and names the variable of a bad one', () => {
    expect(parseConfig({}).simulatorScenario).toBeNull()
    expect(parseConfig({ SIMULATOR_SCENARIO: '7' }).simulatorScenario).toBe(7)
    expect(() => parseConfig({ SIMULATOR_SCENARIO: 'soon' })).toThrowError(/SIMULATOR_SCENARIO must be a whole number/)
  })
  it.each(['API_SYS_ID', 'API_AUTH_TOKEN'])('refuses %s without API_BASE_URL instead of ignoring it', (name) => {
    expect(() => parseConfig({ [name]: 'x' })).toThrowError(new RegExp(`${name} is set but API_BASE_URL is not`))
  })
})

describe('.env', () => {
  it('reads KEY=VALUE lines, comments and quotes, and the real environment wins', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs')
    const { join } = await import('node:path')
    const { tmpdir } = await import('node:os')
    const { loadConfig, readDotEnv } = await import('./config.ts')
    const dir = mkdtempSync(join(tmpdir(), 'sb-env-'))
    writeFileSync(
      join(dir, '.env'),
      '# comment\nAPI_BASE_URL="https://api.example.com"\nAPI_SYS_ID=acct # trailing comment\nAPI_AUTH_TOKEN=from-file\nPORT=6000\n',
    )
    expect(readDotEnv(join(dir, '.env'))).toMatchObject({ API_BASE_URL: 'https://api.example.com', API_SYS_ID: 'acct', PORT: '6000' })
    const c = loadConfig(dir, { PORT: '7000' })
    expect(c.port).toBe(7000)
    expect(c.upstream).toEqual({ baseUrl: 'https://api.example.com', sysId: 'acct', authToken: 'from-file' })
    expect(readDotEnv(join(dir, 'absent.env'))).toEqual({})
  })
})
