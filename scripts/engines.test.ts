import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, expect, it } from 'vitest'

const root = new URL('../', import.meta.url)
const semver = createRequire(import.meta.url)('semver') as {
  minVersion: (range: string) => { version: string } | null
  satisfies: (version: string, range: string) => boolean
}

/** Packages the lock installs whose `engines.node` the oldest Node the project supports does not meet. */
export function enginesRefusing(
  lock: { packages: Record<string, { version?: string; engines?: { node?: string } | string[] }> },
  nodeRange: string,
) {
  const oldest = semver.minVersion(nodeRange)!.version
  return Object.entries(lock.packages)
    .filter(([path, p]) => path !== '' && !Array.isArray(p.engines) && p.engines?.node && !semver.satisfies(oldest, p.engines.node))
    .map(([path, p]) => `${path.replace(/^.*node_modules\//, '')}@${p.version ?? '?'} wants node ${(p.engines as { node: string }).node}`)
}

describe('npm install on the oldest Node the project supports', () => {
  it('installs no package that asks for a newer Node (npm warns EBADENGINE for each)', () => {
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } }
    const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as Parameters<typeof enginesRefusing>[0]
    expect(enginesRefusing(lock, pkg.engines.node)).toEqual([])
  })
  it('names such a package (cookie 2.0.2, which light-my-request asked for, wants Node 22)', () => {
    const lock = { packages: { '': {}, 'node_modules/cookie': { version: '2.0.2', engines: { node: '>=22' } } } }
    expect(enginesRefusing(lock, '>=20.19')).toEqual(['cookie@2.0.2 wants node >=22'])
  })
})
