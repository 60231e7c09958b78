import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { LOCK_FILE } from './lock.ts'

/**
 * Processes started together against a lock left by a dead process: no two may own the
 * directory at once, in any trial. Each of four children goes through the same directories, starting its
 * attempt on each at the same instant as the others, and holds what it got for a moment.
 */
const TRIALS = 30
const CHILDREN = 4
const STEP_MS = 300
const CHILD = `
import { acquireDataDirLock } from ${JSON.stringify(new URL('./lock.ts', import.meta.url).pathname)}
const [dirs, at] = [JSON.parse(process.argv[2]), Number(process.argv[3])]
const answers = []
for (let i = 0; i < dirs.length; i++) {
  while (Date.now() < at + i * ${STEP_MS}) {}
  try {
    const lock = acquireDataDirLock(dirs[i])
    const from = performance.timeOrigin + performance.now()
    while (Date.now() < at + i * ${STEP_MS} + ${STEP_MS / 2}) {}
    answers.push([from, performance.timeOrigin + performance.now()])
    lock.release()
  } catch (err) {
    answers.push(err && err.name === 'DataDirInUseError' ? 'refused' : 'error ' + err)
  }
}
console.log(JSON.stringify(answers))
`

type Answer = [number, number] | string

function child(script: string, dirs: string[], at: number): Promise<Answer[]> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(dirs), String(at)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    p.stdout.on('data', (d: Buffer) => (out += String(d)))
    p.on('close', () => resolve(JSON.parse(out.trim() || '[]') as Answer[]))
  })
}

describe('the data directory lock', () => {
  it(
    `never gives two owners at once when four processes take over a stale lock together, in each of ${TRIALS} trials`,
    { timeout: 60_000 },
    async () => {
      const base = mkdtempSync(join(tmpdir(), 'sb-lock-'))
      const script = join(base, 'take.mts')
      writeFileSync(script, CHILD)
      try {
        const dirs = Array.from({ length: TRIALS }, () => {
          const dir = mkdtempSync(join(base, 'dir-'))
          // A pid that is not alive: beyond the kernel's default pid_max.
          writeFileSync(join(dir, LOCK_FILE), '4194999\n')
          return dir
        })
        // Both children's start-up (tsx) is over before the first trial's instant.
        const at = Date.now() + 4_000
        const answers = await Promise.all(Array.from({ length: CHILDREN }, () => child(script, dirs, at)))
        for (const a of answers) expect(a).toHaveLength(TRIALS)
        for (let i = 0; i < TRIALS; i++) {
          const got = answers.map((a) => a[i]!)
          // Whoever owned the directory held it alone: no two holding times overlap.
          const held = got.filter((x): x is [number, number] => Array.isArray(x)).sort((x, y) => x[0] - y[0])
          expect(held.length, `trial ${i}: ${JSON.stringify(got)}`).toBeGreaterThan(0)
          for (let k = 1; k < held.length; k++)
            expect(held[k]![0], `trial ${i}: ${JSON.stringify(got)}`).toBeGreaterThanOrEqual(held[k - 1]![1])
          for (const x of got) if (!Array.isArray(x)) expect(x, `trial ${i}`).toBe('refused')
        }
      } finally {
        rmSync(base, { recursive: true, force: true })
      }
    },
  )
})
