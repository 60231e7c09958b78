import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { EARLY_CHARS, readText } from './client'

// A real HTTP answer over loopback, written in parts: the server holds the last part until told
// to go on, so the test can see what the reader did while the answer was still arriving.
let server: Server
let base = ''
let goOn: () => void = () => undefined
const head = `{"data":[${'"é-ünïcode",'.repeat(Math.ceil(EARLY_CHARS / 10))}`
const tail = '"last"]}'

beforeAll(async () => {
  server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
    if (req.url === '/short') return void res.end('{"data":[1,2,3]}')
    const bytes = Buffer.from(head + tail, 'utf8')
    // Cut inside a two-byte character: the decoder must carry it into the next part.
    let cut = Buffer.byteLength(head, 'utf8') - 3
    while ((bytes[cut]! & 0xc0) !== 0x80) cut--
    res.write(bytes.subarray(0, cut))
    const timer = setTimeout(() => res.end(bytes.subarray(cut)), 5000)
    goOn = () => {
      clearTimeout(timer)
      res.end(bytes.subarray(cut))
    }
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(
  () =>
    new Promise<void>((r) =>
      server.close(() => {
        r()
      }),
    ),
)

test("a long answer's start is handed on while the rest is still on its way, and the whole text is the body's", async () => {
  const heads: string[] = []
  let endedFirst = false
  const text = await readText(await fetch(`${base}/long`), (h) => {
    heads.push(h)
    // The server has not sent the last part yet: it waits for this.
    goOn()
  }).then((t) => {
    endedFirst = heads.length === 0
    return t
  })
  expect(endedFirst).toBe(false)
  expect(heads).toHaveLength(1)
  expect(heads[0]!.length).toBeGreaterThanOrEqual(EARLY_CHARS)
  expect(text.startsWith(heads[0]!)).toBe(true)
  expect(text).toBe(head + tail)
  expect((JSON.parse(text) as { data: string[] }).data.at(-1)).toBe('last')
})

test('a short answer is read whole with nothing handed on early, as res.text() reads it', async () => {
  const heads: string[] = []
  expect(await readText(await fetch(`${base}/short`), (h) => void heads.push(h))).toBe('{"data":[1,2,3]}')
  expect(heads).toEqual([])
  expect(await readText(await fetch(`${base}/short`))).toBe('{"data":[1,2,3]}')
})
