import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'

/**
 * The e2e specs that start servers of their own each name a fixed loopback port. Specs on the two
 * stacks run side by side, so two specs naming one port fail whichever starts second
 * (EADDRINUSE): first-hour and index-progress both used 4476. Each port belongs to one spec.
 */
it('gives every server an e2e spec starts of its own a port no other spec uses', () => {
  const dir = join(process.cwd(), 'e2e')
  const owner = new Map<number, string>()
  const clashes: string[] = []
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.spec.ts'))) {
    const text = readFileSync(join(dir, file), 'utf8')
    const ports = new Set(
      [...text.matchAll(/(?:startOwnProxy|startProxy)\((\d{4,5})\b|\b[A-Z_]*PORT\s*=\s*(\d{4,5})\b/g)].map((m) => Number(m[1] ?? m[2])),
    )
    for (const port of ports) {
      const other = owner.get(port)
      if (other) clashes.push(`${port}: ${other} and ${file}`)
      else owner.set(port, file)
    }
  }
  // The pattern finds the specs' own ports at all (a rewrite of how they are named would leave this checking nothing).
  expect(owner.size).toBeGreaterThanOrEqual(10)
  expect(clashes).toEqual([])
})
