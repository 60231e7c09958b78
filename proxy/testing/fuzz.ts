import fc from 'fast-check'
import { brotliDecompressSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib'
import { SENTINEL_TOKEN, sendRaw, simStack, type SocketAnswer } from './helpers.ts'

/**
 * A property-based fuzzer for the whole server: fast-check generates raw HTTP requests
 * (request lines, targets with valid and broken percent-escapes, Unicode and overlong ones,
 * duplicate and odd Host headers, Content-Length / Transfer-Encoding combinations, content
 * encodings, methods, form / JSON / multipart / gzip / truncated bodies), sends them over raw
 * sockets to the real server in front of the simulator, and checks four things after each:
 * no 5xx the upstream did not cause, no answer slower than 5 s, the credential in no answer,
 * and the server alive after each batch. Shared by the test suite (bounded) and
 * `npm run fuzz` (a longer soak).
 */

export interface FuzzRequest {
  /** What the generator chose, for the failure report. */
  label: string
  bytes: Buffer
  /** The body is cut short on purpose: the client gives up (half-closes) and no answer is owed. */
  truncated: boolean
}

export interface KnownNumber {
  number: string
  tid: string
}

const ANSWER_LIMIT_MS = 5_000

const pick = <T>(...values: T[]) => fc.constantFrom(...values)

const escapes = pick(
  '%41',
  '%7E',
  '%20',
  '%zz',
  '%',
  '%f',
  '%ff',
  '%FE',
  '%E2%82',
  '%E2%82%AC',
  '%C0%AF',
  '%2e%2e',
  '%2F',
  '%00',
  '%25',
  '%5C',
  '%ED%A0%80',
  '%F0%9F%98%80',
)
const segment = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[a-zA-Z0-9._~-]{0,12}$/) },
  {
    weight: 3,
    arbitrary: fc.array(fc.oneof(escapes, fc.stringMatching(/^[a-z0-9]{0,3}$/)), { minLength: 1, maxLength: 4 }).map((p) => p.join('')),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
  {
    weight: 1,
    arbitrary: pick(
      '..',
      '.',
      '',
      '@evil',
      '\\',
      '+18323232323',
      'index.html',
      'index-abc123.js',
      'big-abc123.bin',
      '__proto__',
      'constructor',
    ),
  },
)

function targetArb() {
  const known = pick(
    '/',
    '/index.html',
    '/numbers',
    '/history/18323232323',
    '/assets/index-abc123.js',
    '/assets/big-abc123.bin',
    '/assets/missing.js',
    '/api/smshistory',
    '/api/allownednumbers',
    '/api/ownednumbers',
    '/api/meta',
    '/api',
    '/api/',
    '/api/index/search',
    '/api/auth/me',
  )
  const built = fc
    .tuple(pick('/', '/api/', '/assets/', '/history/', ''), fc.array(segment, { minLength: 0, maxLength: 5 }))
    .map(([prefix, segs]) => prefix + segs.join('/'))
  const odd = pick(
    '*',
    '//evil.example/api/allownednumbers',
    'http://evil.example/api/allownednumbers',
    'http://127.0.0.1/api/meta',
    '/api/allownednumbers#frag',
    '/%zz',
    '/%ff',
    '/%',
    '/api%zz',
    '/assets/%E2%82',
  )
  const overlong = fc
    .tuple(pick('/', '/api/', '/assets/'), fc.integer({ min: 3_000, max: 20_000 }), pick('a', '%41', '%zz', 'é'))
    .map(([p, n, c]) => p + c.repeat(Math.ceil(n / c.length)))
  const query = fc.option(
    fc.oneof(fc.stringMatching(/^[a-z=&%0-9]{0,20}$/), pick('sys_id=x', 'q=%zz', 'q=%E2%82', 'a=1&a=2', '', 'tid=%20')),
    { nil: undefined, freq: 3 },
  )
  return fc
    .tuple(
      fc.oneof(
        { weight: 5, arbitrary: known },
        { weight: 5, arbitrary: built },
        { weight: 2, arbitrary: odd },
        { weight: 1, arbitrary: overlong },
      ),
      query,
    )
    .map(([path, q]) => (q === undefined ? path : `${path}?${q}`))
}

function valueArb(known: KnownNumber[]) {
  return fc.oneof(
    { weight: 4, arbitrary: pick(...known.flatMap((k) => [k.number, `+${k.number}`, k.tid])) },
    { weight: 3, arbitrary: fc.integer({ min: -5, max: 2_000_000 }).map(String) },
    { weight: 2, arbitrary: pick('local', 'tollfree', 'mobile', '', '  ', '\t', '1.5', '1e3', '0x10', 'NaN') },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 10 }) },
    { weight: 1, arbitrary: pick('\u0085X', '\u202eX', 'X\u200b', '\ufeffX', '\u2066X', 'X\u0000', SENTINEL_TOKEN.slice(0, 10)) },
    { weight: 1, arbitrary: fc.integer({ min: 65, max: 400 }).map((n) => 'T'.repeat(n)) },
  )
}

const FIELD_NAMES = ['number', 'tid', 'history_start', 'history_end', 'number_type', 'sys_id', 'auth_token']
function fieldsArb(known: KnownNumber[]) {
  const name = fc.oneof(
    { weight: 6, arbitrary: pick(...FIELD_NAMES) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 50 }) },
  )
  const good = fc.constantFrom(...known).chain((k) =>
    fc.integer({ min: 1, max: 3_000 }).chain((start) =>
      fc.integer({ min: 0, max: 1_200 }).map((span): Array<[string, string]> => [
        ['number', k.number],
        ['tid', k.tid],
        ['history_start', String(start)],
        ['history_end', String(start + span)],
      ]),
    ),
  )
  const random = fc.array(fc.tuple(name, valueArb(known)), { maxLength: 8 })
  // A good request with a few random changes finds the edges nearest to what works.
  const mutated = fc.tuple(good, random).map(([g, r]) => [...g, ...r])
  return fc.oneof(good, random, mutated)
}

type BodyKind = 'form' | 'json' | 'multipart' | 'bytes' | 'huge'

function bodyFor(
  kind: BodyKind,
  fields: Array<[string, string]>,
  extras: { bom: boolean; jsonShape: number; junk: Uint8Array },
): { body: Buffer; type: string } {
  switch (kind) {
    case 'form':
      return {
        body: Buffer.from((extras.bom ? '\ufeff' : '') + new URLSearchParams(fields).toString()),
        type: 'application/x-www-form-urlencoded',
      }
    case 'json': {
      // Built by hand so duplicate keys survive; some shapes are deliberately not objects or not JSON.
      const pairs = fields.map(([k, v]) => `${JSON.stringify(k)}:${/^\d+$/.test(v) && extras.jsonShape % 2 ? v : JSON.stringify(v)}`)
      const shapes = [
        `{${pairs.join(',')}}`,
        `[${pairs.length}]`,
        `{${pairs.join(',')}`,
        `{"a":{"b":[1,{"c":null}]},${pairs.join(',')}}`,
        'null',
        `"${'x'.repeat(20)}"`,
        `{${pairs.join(' , ')} }`,
      ]
      return { body: Buffer.from((extras.bom ? '\ufeff' : '') + shapes[extras.jsonShape % shapes.length]), type: 'application/json' }
    }
    case 'multipart': {
      const b = 'fuzzboundary42'
      const parts = fields.map(([k, v]) => `--${b}\r\nContent-Disposition: form-data; name="${k.replace(/["\r\n]/g, '')}"\r\n\r\n${v}\r\n`)
      return { body: Buffer.from(`${parts.join('')}--${b}--\r\n`), type: `multipart/form-data; boundary=${b}` }
    }
    case 'bytes':
      return { body: Buffer.from(extras.junk), type: 'application/octet-stream' }
    case 'huge':
      return { body: Buffer.from(`tid=${'x'.repeat(20_000)}`), type: 'application/x-www-form-urlencoded' }
  }
}

/** Each part's range: hostile draws from the whole of it, near-valid keeps to what a client sends. */
function methodArb(hostile: boolean) {
  return hostile
    ? fc.oneof(
        { weight: 8, arbitrary: pick('GET', 'POST') },
        { weight: 3, arbitrary: pick('HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE', 'get', 'FOO', 'PROPFIND') },
      )
    : fc.constant('POST')
}

function versionArb(hostile: boolean) {
  return !hostile
    ? fc.constant('HTTP/1.1')
    : fc.oneof(
        { weight: 10, arbitrary: fc.constant('HTTP/1.1') },
        { weight: 1, arbitrary: pick('HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1 x', 'HTTP/9.9', '') },
      )
}

/** The Host header lines: none, one or several, good and bad. */
function hostArb(hostile: boolean, port: number) {
  return !hostile
    ? fc.constant([`127.0.0.1:${port}`])
    : fc.oneof(
        { weight: 10, arbitrary: pick([`127.0.0.1:${port}`], [`localhost:${port}`]) },
        {
          weight: 3,
          arbitrary: pick(
            [],
            ['127.0.0.1', 'evil.example'],
            ['127.0.0.1', '127.0.0.1'],
            [''],
            ['a b'],
            ['127.0.0.1:99999'],
            ['[::1]'],
            ['[zz]'],
            ['évil.example'],
            ['x'.repeat(300)],
            ['127.0.0.1:0'],
            ['evil.example'],
            ['127.0.0.1.'],
            ['LOCALHOST'],
          ),
        },
      )
}

/** A Content-Type that contradicts the body, or none. */
function typeOverrideArb(hostile: boolean) {
  return !hostile
    ? fc.constant(undefined)
    : fc.option(
        pick(
          'text/plain',
          'application/json; charset=utf-8',
          'APPLICATION/X-WWW-FORM-URLENCODED',
          'multipart/form-data',
          '',
          'application/json;;;',
          'image/png',
        ),
        { nil: undefined, freq: 4 },
      )
}

function encodingArb(hostile: boolean) {
  return fc.oneof(
    { weight: hostile ? 6 : 30, arbitrary: fc.constant('none') },
    { weight: 3, arbitrary: pick('gzip', 'gzip-mislabelled-br', 'br-raw', 'compress', 'gzip, identity', 'x-unknown', 'deflate-raw') },
  )
}

/** How the body is delimited: Content-Length, chunked, both, or lengths that lie. */
function framingArb(hostile: boolean) {
  return fc.oneof(
    { weight: hostile ? 8 : 40, arbitrary: fc.constant('cl') },
    {
      weight: 3,
      arbitrary: pick(
        'none',
        'chunked',
        'cl+chunked',
        'dup-cl',
        'bad-cl',
        'negative-cl',
        'cl-short',
        'chunked-bad',
        'chunked-unterminated',
        'te-gzip-chunked',
        'te-identity',
        'cl-long-body',
      ),
    },
  )
}

function originArb(hostile: boolean, port: number) {
  return !hostile
    ? fc.constant(undefined)
    : fc.option(pick(`http://127.0.0.1:${port}`, 'https://evil.example', 'null', 'not a url', `http://localhost:${port}`), {
        nil: undefined,
        freq: 3,
      })
}

/** One header line more that the server must survive. */
function oddHeaderArb() {
  return fc.option(
    pick(
      'Range: bytes=5-1',
      'Range: bytes=-10',
      'Range: bytes=0-0',
      'If-None-Match: *',
      'Expect: 100-continue',
      'X-Forwarded-For: 1.2.3.4',
      'Cookie: a=b',
      'Authorization: Bearer x',
      'Header-With-Space : x',
      'X-Bad: a\u0000b',
      'X-Latin: caf\u00e9',
    ),
    {
      nil: undefined,
      freq: 3,
    },
  )
}

/**
 * What the generator chooses for one request. Hostile: every part drawn from the whole range.
 * Near-valid: a well-formed request to an operation with a few parts off, so the generator also
 * reaches validation and the upstream. The keys' order is the draw order: a seed replays only
 * while it stays.
 */
function requestParts(hostile: boolean, known: KnownNumber[], port: number) {
  return fc.record({
    method: methodArb(hostile),
    target: hostile ? targetArb() : pick('/api/smshistory', '/api/smshistory', '/api/allownednumbers', '/api/ownednumbers'),
    version: versionArb(hostile),
    host: hostArb(hostile, port),
    bodyKind: hostile
      ? pick<BodyKind | 'none'>('none', 'form', 'form', 'json', 'json', 'multipart', 'bytes', 'huge')
      : pick<BodyKind | 'none'>('form', 'form', 'json', 'json', 'multipart'),
    fields: fieldsArb(known),
    bom: fc.boolean(),
    jsonShape: fc.nat(),
    junk: fc.uint8Array({ maxLength: 200 }),
    typeOverride: typeOverrideArb(hostile),
    encoding: encodingArb(hostile),
    framing: framingArb(hostile),
    origin: originArb(hostile, port),
    site: !hostile
      ? fc.constant(undefined)
      : fc.option(pick('same-origin', 'cross-site', 'same-site', 'none'), { nil: undefined, freq: 3 }),
    acceptEncoding: fc.option(pick('gzip', 'br', 'gzip, deflate, br', 'identity', '*'), { nil: undefined, freq: 2 }),
    odd: oddHeaderArb(),
  })
}

type RequestParts = ReturnType<typeof requestParts> extends fc.Arbitrary<infer P> ? P : never

/** The body with its Content-Type and Content-Encoding as chosen (compressed, mislabelled or not). */
function encodedBody(r: RequestParts): { body: Buffer; type: string; encodingHeader: string | undefined } {
  let { body, type } = r.bodyKind === 'none' ? { body: Buffer.alloc(0), type: '' } : bodyFor(r.bodyKind, r.fields, r)
  if (r.typeOverride !== undefined) type = r.typeOverride
  let encodingHeader: string | undefined
  if (r.encoding === 'gzip' || r.encoding === 'gzip, identity' || r.encoding === 'gzip-mislabelled-br') {
    body = gzipSync(body)
    encodingHeader = r.encoding === 'gzip-mislabelled-br' ? 'br' : r.encoding
  } else if (r.encoding === 'br-raw') encodingHeader = 'br'
  else if (r.encoding === 'deflate-raw') encodingHeader = 'deflate'
  else if (r.encoding !== 'none') encodingHeader = r.encoding
  return { body, type, encodingHeader }
}

/** The request line and the headers before the framing ones. */
function headLines(r: RequestParts, type: string, encodingHeader: string | undefined): string[] {
  const lines = [`${r.method} ${r.target} ${r.version}`.trimEnd()]
  for (const h of r.host) lines.push(`Host: ${h}`)
  if (type) lines.push(`Content-Type: ${type}`)
  if (encodingHeader) lines.push(`Content-Encoding: ${encodingHeader}`)
  if (r.origin !== undefined) lines.push(`Origin: ${r.origin}`)
  if (r.site !== undefined) lines.push(`Sec-Fetch-Site: ${r.site}`)
  if (r.acceptEncoding !== undefined) lines.push(`Accept-Encoding: ${r.acceptEncoding}`)
  if (r.odd !== undefined) lines.push(r.odd)
  lines.push('Connection: close')
  return lines
}

/** How the body is delimited: its headers and the bytes that follow the head; truncated when the client gives up. */
function frame(framing: string, body: Buffer): { headers: string[]; payload: Buffer; truncated: boolean } {
  const chunked = (b: Buffer, end = true) =>
    Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from(end ? '\r\n0\r\n\r\n' : '\r\n')])
  const as = (headers: string[], payload = body, truncated = false) => ({ headers, payload, truncated })
  switch (framing) {
    case 'cl':
      return as([`Content-Length: ${body.length}`])
    case 'chunked':
      return as(['Transfer-Encoding: chunked'], chunked(body))
    case 'cl+chunked':
      return as([`Content-Length: ${body.length}`, 'Transfer-Encoding: chunked'], chunked(body))
    case 'dup-cl':
      return as([`Content-Length: ${body.length}`, `Content-Length: ${body.length + 1}`])
    case 'bad-cl':
      return as(['Content-Length: 12abc'])
    case 'negative-cl':
      return as(['Content-Length: -1'])
    case 'cl-short':
      return as([`Content-Length: ${body.length + 50}`], body, true)
    case 'cl-long-body':
      return as([`Content-Length: ${Math.max(0, body.length - 3)}`])
    case 'chunked-bad':
      return as(['Transfer-Encoding: chunked'], Buffer.concat([Buffer.from('zz\r\n'), body, Buffer.from('\r\n0\r\n\r\n')]))
    case 'chunked-unterminated':
      return as(['Transfer-Encoding: chunked'], chunked(body, false), true)
    case 'te-gzip-chunked':
      return as(['Transfer-Encoding: gzip, chunked'], chunked(body))
    case 'te-identity':
      return as(['Transfer-Encoding: identity'])
    default:
      // 'none': neither a length nor chunking, so to the server the body is absent and its bytes follow as junk.
      return as([])
  }
}

/** The chosen parts as the bytes sent, with a label for the failure report. */
function toRequest(r: RequestParts): FuzzRequest {
  const { body, type, encodingHeader } = encodedBody(r)
  const { headers, payload, truncated } = frame(r.framing, body)
  const lines = [...headLines(r, type, encodingHeader), ...headers]
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8')
  const label = `${lines.join(' | ').slice(0, 600)} || body ${r.bodyKind} ${payload.length} bytes: ${JSON.stringify(payload.subarray(0, 200).toString('latin1'))}`
  return { label, bytes: Buffer.concat([head, payload]), truncated }
}

/** Raw HTTP requests, every part chosen by the generator. */
export function requestArbitrary(known: KnownNumber[], port: number): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(requestParts(true, known, port), requestParts(false, known, port)).map(toRequest)
}

/** The answer's body as text, decoded if the server compressed it, so a credential cannot hide. */
function answerText(a: SocketAnswer): string {
  const enc = /content-encoding: *([a-z-]+)/i.exec(a.head)?.[1]?.toLowerCase()
  let body = a.body
  try {
    if (enc === 'gzip') body = gunzipSync(body)
    else if (enc === 'br') body = brotliDecompressSync(body)
    else if (enc === 'deflate') body = inflateSync(body)
  } catch {
    /* a HEAD answer or a cut body: check the bytes as they are */
  }
  return `${a.head}\r\n\r\n${body.toString('latin1')}`
}

/** The four checks on one answer; a sentence saying what is wrong, or undefined. */
export function problemWith(a: SocketAnswer): string | undefined {
  if (a.timedOut) return `no complete answer within ${ANSWER_LIMIT_MS / 1000} s (status so far: ${a.status || 'none'})`
  const text = answerText(a)
  if (text.includes(SENTINEL_TOKEN) || text.includes(encodeURIComponent(SENTINEL_TOKEN))) return 'the credential appears in the answer'
  if (a.status >= 500) {
    let kind = ''
    try {
      kind = (JSON.parse(a.body.toString('utf8')) as { error?: { kind?: string } }).error?.kind ?? ''
    } catch {
      /* not our envelope */
    }
    // The simulator runs with no faults switched on, so only a transport failure of the upstream excuses a 5xx.
    if (kind !== 'unreachable' && kind !== 'timeout')
      return `answered ${a.status} (${kind || 'no envelope'}): ${a.body.toString('utf8').slice(0, 300)}`
  }
  return undefined
}

export interface FuzzStats {
  requests: number
  batches: number
  statuses: Record<string, number>
  /** Answers that closed the connection with no status line (not a failure; reported). */
  closedWithoutAnswer: number
  slowestMs: number
  seed: number
  failure?: string
  /** The first failure as found, before shrinking (a dead server makes every shrunk case fail too). */
  firstFailure?: string
}

/**
 * Run the fuzzer against a fresh server on the simulator. Bounded by `runs` batches (each
 * 1–20 requests) and by `seconds`; on a failure fast-check shrinks it and the report names the
 * seed and path to replay it.
 */
export async function runFuzz(opts: { runs: number; seconds: number; seed?: number; concurrency?: number }): Promise<FuzzStats> {
  const seed = opts.seed ?? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0
  const stack = await simStack()
  const stats: FuzzStats = { requests: 0, batches: 0, statuses: {}, closedWithoutAnswer: 0, slowestMs: 0, seed }
  try {
    const listing = await fetch(`${stack.url}/api/allownednumbers`, { method: 'POST' })
    const known = ((await listing.json()) as { data: KnownNumber[] }).data.slice(0, 8).map(({ number, tid }) => ({ number, tid }))
    known.push({ number: '18323232323', tid: 'PUHMGWS98301' }, { number: '15550001111', tid: 'NOPE' })
    const alive = async () => {
      const r = await sendRaw(stack.port, 'GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', ANSWER_LIMIT_MS)
      return r.status === 200
    }
    const property = fc.asyncProperty(fc.array(requestArbitrary(known, stack.port), { minLength: 1, maxLength: 20 }), async (batch) => {
      stats.batches++
      const answers: SocketAnswer[] = []
      // A few at a time: concurrency finds interleavings without starving a 2-core machine.
      const width = opts.concurrency ?? 8
      for (let i = 0; i < batch.length; i += width) {
        const part = batch.slice(i, i + width)
        answers.push(
          ...(await Promise.all(part.map((r) => sendRaw(stack.port, r.bytes, ANSWER_LIMIT_MS + 500, r.truncated ? 50 : undefined)))),
        )
      }
      const fail = (message: string) => {
        stats.firstFailure ??= message
        throw new Error(message)
      }
      batch.forEach((req, i) => {
        const a = answers[i]!
        stats.requests++
        stats.statuses[a.status] = (stats.statuses[a.status] ?? 0) + 1
        if (a.status === 0) stats.closedWithoutAnswer++
        stats.slowestMs = Math.max(stats.slowestMs, a.ms)
        const problem = problemWith(a) ?? (a.ms > ANSWER_LIMIT_MS ? `answered after ${Math.round(a.ms)} ms` : undefined)
        if (problem) fail(`${problem}\n  request: ${req.label}`)
      })
      // A throw in any request path is logged by the error boundary even when the client saw only a closed connection.
      const thrown = stack.logs.find((l) => / failed: /.test(l))
      if (thrown) {
        stack.logs.length = 0
        fail(`a request path threw: ${thrown}\n  batch:\n  ${batch.map((r) => r.label).join('\n  ')}`)
      }
      stack.logs.length = 0
      if (!(await alive())) fail(`the server stopped answering after this batch:\n  ${batch.map((r) => r.label).join('\n  ')}`)
    })
    try {
      await fc.assert(property, {
        numRuns: opts.runs,
        seed,
        interruptAfterTimeLimit: opts.seconds * 1000,
        markInterruptAsFailure: false,
        endOnFailure: false,
      })
    } catch (err) {
      const cause = err instanceof Error && err.cause instanceof Error ? `\nShrunk failure: ${err.cause.message}` : ''
      stats.failure = `fuzz failed with seed ${seed} (replay: FUZZ_SEED=${seed}): ${err instanceof Error ? err.message : String(err)}${cause}\nFirst failure as found: ${stats.firstFailure ?? '(none recorded)'}`
    }
    return stats
  } finally {
    await stack.close()
  }
}
