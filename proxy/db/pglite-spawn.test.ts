import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { SERVER_NODE_FLAGS } from '../../scripts/server-flags.mjs'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/**
 * Run from TypeScript, PGlite's worker is handed the process's flags (pglite-spawn.ts). A V8 flag
 * the server is started with holds for the whole process, and a Worker refuses it in its
 * execArgv: PGlite opens and answers in a process started as the bench's and the browser tests'
 * servers are under tsx. The bench's desk group stopped there once, at its first open.
 */
it('PGlite opens in a process started with the server’s Node flags, under tsx', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'spawn-flags-'))
  dirs.push(dataDir)
  const child = `
    const { openDb } = await import(${JSON.stringify(new URL('./open.ts', import.meta.url).href)})
    const db = await openDb({ dataDir: ${JSON.stringify(dataDir)} })
    const r = await db.query('SELECT 6 * 7 AS answer')
    await db.close()
    process.stdout.write(String(r.rows[0].answer))
  `
  const run = spawnSync(process.execPath, [...SERVER_NODE_FLAGS, '--import', 'tsx', '--input-type=module', '-e', child], {
    encoding: 'utf8',
    timeout: 90_000,
  })
  expect(run.stderr).not.toContain('ERR_WORKER_INVALID_EXEC_ARGV')
  expect(run.status).toBe(0)
  expect(run.stdout).toBe('42')
  expect(SERVER_NODE_FLAGS).toContain('--single-threaded-gc')
})
