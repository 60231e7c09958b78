import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, request, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliDecompressSync } from 'node:zlib'
import { afterEach, expect, it } from 'vitest'
import { createStatic } from './static.ts'

let server: Server | null = null
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise<void>((ok) => (server ? server.close(() => ok()) : ok()))
  server = null
})

/** GET with brotli accepted: the status and the body as text, or null when the answer was cut. */
function get(port: number, path: string): Promise<{ status: number; encoding: string | null; body: string } | null> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { 'accept-encoding': 'br' } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('error', () => resolve(null))
      res.on('end', () => {
        const raw = Buffer.concat(chunks)
        const encoding = (res.headers['content-encoding'] as string | undefined) ?? null
        resolve({ status: res.statusCode ?? 0, encoding, body: (encoding === 'br' ? brotliDecompressSync(raw) : raw).toString() })
      })
    })
    req.on('error', () => resolve(null))
    req.end()
  })
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

it('an app built again under the running server is served from the new files after one cut answer, not cut until a restart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-static-'))
  // Over the size worth a compressed copy, so the server writes index.html.br beside it.
  const shell = (v: string) => `<!doctype html><title>${v}</title><div id="root"></div>${' '.repeat(4000)}`
  writeFileSync(join(dir, 'index.html'), shell('first build'))
  const log: string[] = []
  server = createServer(createStatic(dir, (l) => log.push(l)))
  await new Promise<void>((ok) => server!.listen(0, '127.0.0.1', () => ok()))
  const port = (server.address() as AddressInfo).port
  // The compressed copy is written and served (bounded wait).
  for (let i = 0; i < 100; i++) {
    const r = await get(port, '/search')
    if (r?.encoding === 'br') break
    await sleep(50)
  }
  expect(existsSync(join(dir, 'index.html.br'))).toBe(true)
  expect(await get(port, '/search')).toMatchObject({ status: 200, encoding: 'br' })

  // A new build: vite empties the directory (the compressed copies go) and writes the new files.
  rmSync(join(dir, 'index.html.br'))
  rmSync(join(dir, 'index.html.gz'), { force: true })
  writeFileSync(join(dir, 'index.html'), shell('second build'))

  const answers: Array<Awaited<ReturnType<typeof get>>> = []
  for (let i = 0; i < 20; i++) {
    const r = await get(port, '/search')
    answers.push(r)
    if (r?.status === 200) break
    await sleep(50)
  }
  // At most the first answer is cut (its headers were out before the file was found gone).
  expect(answers.filter((a) => a === null).length).toBeLessThanOrEqual(1)
  expect(answers.at(-1)).toMatchObject({ status: 200 })
  expect(answers.at(-1)!.body).toContain('<title>second build</title>')
  expect(log.some((l) => l.includes('changed since the server started; reading them again'))).toBe(true)
  rmSync(dir, { recursive: true, force: true })
})
