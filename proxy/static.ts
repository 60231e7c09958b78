import { existsSync, statSync } from 'node:fs'
import { readFile, readdir, rename, stat, writeFile } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { join, resolve } from 'node:path'
import type { Readable } from 'node:stream'
import { promisify } from 'node:util'
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib'
import sirv from 'sirv'
import { SECURITY_HEADERS } from './http.ts'
import { hintFor, readPageHints } from './page-hints.ts'

/**
 * The built SPA, served by sirv (a file map built once, ETag/304, precompressed .br/.gz, SPA
 * fallback). Around it: the security headers on every answer, a long immutable cache for the
 * content-hashed /assets/, a real 404 for a missing asset, Range headers sirv would mis-read
 * dropped, and every file stream destroyed when its client leaves (sirv pipes with no error
 * handler and no clean-up, which leaks a descriptor per aborted download).
 */

export type StaticHandler = (req: IncomingMessage, res: ServerResponse) => void

const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|webmanifest)$/
/** Below this a compressed copy saves less than its own header costs. */
const MIN_COMPRESS_BYTES = 1024

const brotli = promisify(brotliCompress)
const gz = promisify(gzip)

async function* walk(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name)
    if (entry.isDirectory()) yield* walk(full)
    else if (entry.isFile()) yield full
  }
}

/**
 * Write `.br` and `.gz` copies beside each compressible file that lacks a fresh one (vite
 * build does not make them). Each is written to a temporary name and renamed, so a reader
 * never sees half a file. Returns how many were written; a read-only directory just means the
 * files go out uncompressed.
 */
export async function precompress(dir: string): Promise<number> {
  let written = 0
  for await (const file of walk(dir)) {
    if (!COMPRESSIBLE.test(file)) continue
    const info = await stat(file)
    if (info.size < MIN_COMPRESS_BYTES) continue
    let body: Buffer | undefined
    for (const [ext, compress] of [
      [
        '.br',
        (b: Buffer) =>
          brotli(b, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: b.length } }),
      ],
      ['.gz', (b: Buffer) => gz(b, { level: 9 })],
    ] as const) {
      const target = file + ext
      const existing = await stat(target).catch(() => undefined)
      if (existing && existing.mtimeMs >= info.mtimeMs) continue
      body ??= await readFile(file)
      const tmp = `${target}.${process.pid}.tmp`
      await writeFile(tmp, await compress(body))
      await rename(tmp, target)
      written++
    }
  }
  return written
}

/** `bytes=a-b` or `bytes=a-` with a ≤ b; sirv reads anything else wrongly (suffix ranges, b < a, lists). */
function rangeIsSimple(range: string): boolean {
  const m = /^bytes=(\d{1,15})-(\d{0,15})$/.exec(range.trim())
  return !!m && (m[2] === '' || Number(m[1]) <= Number(m[2]))
}

export function createStatic(dir: string, log: (line: string) => void): StaticHandler {
  const root = resolve(dir)
  const notFound = (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
    res.end('Not found')
  }
  // sirv stats every file once, when its map is made: a file another server renames away
  // meanwhile (its .br/.gz copy's temporary name, the same dist/ served twice) fails that stat.
  // Made again then, up to three times, never thrown out of a promise callback.
  const build = (): ReturnType<typeof sirvMap> => {
    for (let attempt = 1; ; attempt++)
      try {
        return sirvMap()
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === 3) throw err
      }
  }
  const sirvMap = () =>
    existsSync(root) && statSync(root).isDirectory()
      ? sirv(root, {
          etag: true,
          gzip: true,
          brotli: true,
          // Client-side routes fall back to the app shell; anything with an extension and
          // anything under /assets/ is a real file or a real 404.
          single: true,
          ignores: ['^/assets/'],
          dotfiles: false,
          onNoMatch: notFound,
          setHeaders: (res, pathname) => {
            // Vite names every asset by its content hash, so it can be cached for good; the
            // shell must be revalidated (ETag) so a new build is picked up at once.
            res.setHeader('cache-control', pathname.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache')
          },
        })
      : undefined
  let serve = build()
  // The first page's chunks for each route, from the build's manifest (proxy/page-hints.ts).
  let hints = serve ? readPageHints(root, log) : new Map<string, string>()
  const compressCopies = () =>
    precompress(root).then(
      (n) => {
        if (n === 0) return
        try {
          serve = build() // pick up the new .br/.gz files
        } catch (err) {
          log(`static: serving without the new compressed copies: ${(err as NodeJS.ErrnoException).code ?? String(err)}`)
        }
      },
      (err: NodeJS.ErrnoException) =>
        log(`static: serving uncompressed, could not write compressed copies in ${root}: ${err.code ?? err.message}`),
    )
  if (serve) void compressCopies()
  // A file of the map gone from the disk: the app was built again under the running server
  // (vite empties the directory, its .br/.gz copies with it). The map is made again, so the next
  // request is answered from the new build rather than every one failing until a restart.
  let rereading: Promise<void> | null = null
  const reread = () => {
    rereading ??= Promise.resolve()
      .then(() => {
        log(`static: the app's files in ${root} changed since the server started; reading them again`)
        serve = build()
        hints = serve ? readPageHints(root, log) : new Map<string, string>()
        return serve ? compressCopies() : undefined
      })
      .catch((err: unknown) => log(`static: could not read the app's files again: ${String(err)}`))
      .finally(() => {
        rereading = null
      })
  }

  return (req, res) => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v)
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' })
      res.end('Method not allowed')
      req.resume()
      return
    }
    if (!serve) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
      res.end('Not found: the app is not built (run npm run build).')
      return
    }
    // On the app shell only (sirv answers a page's path with index.html); never on /assets/.
    const link = req.url?.startsWith('/assets/') ? undefined : hintFor(hints, req.url)
    if (link) res.setHeader('link', link)
    if (req.headers.range !== undefined && !rangeIsSimple(req.headers.range)) delete req.headers.range // RFC 9110 §14.2: a server may ignore Range
    res.once('pipe', (src: Readable) => {
      src.once('error', (err: NodeJS.ErrnoException) => {
        log(`static: ${req.url?.slice(0, 200)}: could not read the file (${err.code ?? err.message})`)
        // Its headers are out (sirv sends them before it opens the file): the answer can only be cut.
        res.destroy()
        if (err.code === 'ENOENT') reread()
      })
      // The client left (or the answer ended): the file descriptor goes now, not at GC.
      res.once('close', () => src.destroy())
    })
    serve(req, res)
  }
}
