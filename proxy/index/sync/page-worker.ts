import { setPriority } from 'node:os'
import { parentPort } from 'node:worker_threads'
import { withoutBom } from '../../../contract/upstream-values.ts'
import { identity, newestIndexOf, PageError, parsePage, type Page } from '../parse.ts'
import type { FromWorker, Parsed, ToWorker } from './page-protocol.ts'
import { lineBytesOf, payloadOf, prepareBatch, type Placed } from './prepare.ts'

/**
 * The full walk's page worker: a thread that decodes and parses history pages, and makes each
 * batch's COPY lines, roll-ups and desk counts (prepare.ts), so the server's thread handles
 * requests while a large history is walked. It holds no credential and opens no connection:
 * the server's thread fetches the bytes and runs every transaction (pages.ts).
 */

interface Walk {
  pages: Map<number, { page: Page; start: number }>
  batch: Placed[]
  /** The envelope of the last page taken from (the batch's dates fall back to its newest date). */
  last: Page | null
  /** Why the batch can no longer be trusted (a page taken that this worker does not hold). */
  broken: string | null
}

const walks = new Map<string, Walk>()
const walkOf = (name: string): Walk => {
  let w = walks.get(name)
  if (!w) walks.set(name, (w = { pages: new Map(), batch: [], last: null, broken: null }))
  return w
}

/**
 * At nice 10, as PGlite's thread (pglite-worker.ts, where the reasons are): on two cores this
 * thread's parsing competed with the server's thread, and a request waited for a core behind it.
 * On Linux a nice value is per thread (pid 0: the calling thread).
 */
if (process.platform === 'linux')
  try {
    setPriority(0, 10)
  } catch {
    // Not allowed here: the thread keeps the server's priority, which is only slower under load.
  }

const port = parentPort!
const reply = (m: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer)

/** The bytes parsed as forward.ts judges them: anything but a JSON object with success "1" goes back to be judged there. */
function parse(bytes: Uint8Array, start: number, w: Walk, id: number): Parsed {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  let json: unknown
  try {
    json = JSON.parse(withoutBom(text))
  } catch {
    return { kind: 'judge', bytes }
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) return { kind: 'judge', bytes }
  const success = (json as Record<string, unknown>).success
  if (success !== '1' && success !== 1) return { kind: 'judge', bytes }
  let page: Page
  try {
    page = parsePage(text, json)
  } catch (e) {
    if (e instanceof PageError) return { kind: 'invalid', message: e.message }
    throw e
  }
  w.pages.set(id, { page, start })
  const { total, newestId, newestAt, createdRaw, optin, records } = page
  const packed = lineBytesOf(records.map(identity))
  return {
    kind: 'page',
    meta: { total, newestId, newestAt, createdRaw, optin },
    ids: { bytes: packed.lineBytes, ends: packed.lineEnds },
    newestIndex: newestIndexOf(page),
  }
}

function take(w: Walk, id: number, ranges: Array<[number, number]>): void {
  const held = w.pages.get(id)
  w.pages.delete(id)
  if (!held) {
    w.broken ??= `page ${id} was not held`
    return
  }
  const { page, start } = held
  for (const [from, to] of ranges)
    for (let i = from; i < to; i++) w.batch.push({ ordinal: page.total - (start + i) + 1, r: page.records[i]! })
  w.last = page
}

port.on('message', (m: ToWorker) => {
  if (m.t === 'take') return take(walkOf(m.walk), m.id, m.ranges)
  if (m.t === 'drop') return void walks.get(m.walk)?.pages.delete(m.id)
  if (m.t === 'end') return void walks.delete(m.walk)
  const w = walkOf(m.walk)
  if (m.t === 'parse') {
    try {
      const parsed = parse(m.bytes, m.start, w, m.id)
      // A page's identities move to the server's thread; bytes to judge go back there, moved when this thread holds their only view.
      if (parsed.kind === 'page') return reply({ id: m.id, parsed }, [parsed.ids.bytes.buffer, parsed.ids.ends.buffer])
      const b = parsed.kind === 'judge' ? parsed.bytes : null
      const whole = b !== null && b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && b.buffer instanceof ArrayBuffer
      return reply({ id: m.id, parsed }, whole ? [b.buffer as ArrayBuffer] : [])
    } catch (e) {
      return reply({ id: m.id, error: e instanceof Error ? e.message : String(e) })
    }
  }
  const { batch, last, broken } = w
  w.batch = []
  if (broken || !last) return reply({ id: m.id, error: broken ?? 'no rows were taken for this batch' })
  prepareBatch(m.of, last, batch, null, true)
    .then((prep) => {
      const payload = payloadOf(prep, m.of.desk)
      const { lineBody, lineStatus, lineBytes, lineEnds } = payload
      reply({ id: m.id, payload }, [lineBody.buffer as ArrayBuffer, lineStatus.buffer as ArrayBuffer, lineBytes.buffer, lineEnds.buffer])
    })
    .catch((e: unknown) => reply({ id: m.id, error: e instanceof Error ? e.message : String(e) }))
})
