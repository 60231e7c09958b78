import { parentPort } from 'node:worker_threads'
import { allowedHostsTest, checkUrl } from './probe.ts'
import type { CheckAsked } from './probe-thread.ts'

/**
 * The checks' own thread (probe-thread.ts): each message is one check, answered with its result.
 * DNS, the connections, the TLS handshakes and the HTTP parsing run here, beside the server's
 * event loop rather than on it.
 */
const port = parentPort
if (!port) throw new Error('probe-worker.ts runs as a worker thread (probe-thread.ts starts it).')
const tests = new Map<string, ReturnType<typeof allowedHostsTest>>()
port.on('message', (m: CheckAsked) => {
  const key = m.allowedHosts.join(',')
  let allowed = tests.get(key)
  if (!allowed) tests.set(key, (allowed = allowedHostsTest(m.allowedHosts)))
  void checkUrl(m.url, { timeoutMs: m.timeoutMs, allowed, ...(m.ca ? { ca: m.ca } : {}), now: () => m.at }).then((result) =>
    port.postMessage({ id: m.id, result }),
  )
})
