import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Test certificates made by the openssl command: a CA of the test's own, and leaves it signs
 * for the names given, valid for `days` (0: its notAfter is the moment it is made, so it has
 * expired a second later). Keys are P-256, quick to make on a busy machine.
 */

export interface TestCa {
  ca: string
  leaf: (subjectAltName: string, days: number) => { key: string; cert: string }
  dispose: () => void
}

export function makeTestCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'sb-watch-certs-'))
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] })
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']
  run(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '3', '-subj', '/CN=Switchboard test CA'])
  let n = 0
  return {
    ca: readFileSync(join(dir, 'ca.pem'), 'utf8'),
    leaf: (subjectAltName, days) => {
      const name = `leaf${++n}`
      run(['req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`])
      writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${subjectAltName}\n`)
      run([
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `${name}.pem`,
        '-days',
        String(days),
        '-extfile',
        `${name}.ext`,
      ])
      return { key: readFileSync(join(dir, `${name}.key`), 'utf8'), cert: readFileSync(join(dir, `${name}.pem`), 'utf8') }
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  }
}
