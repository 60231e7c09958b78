import { createPublicKey, verify } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'
import type { Db } from '../db/types.ts'
import { addressProblem } from '../kernel/outbound-address.ts'
import type { AlertsConfig, EnvChannel } from '../alerts/config.ts'
import { createAlerts, type Alerts, type AlertsDeps } from '../alerts/room.ts'
import type { LogHead } from '../alerts/types.ts'

/**
 * Test plumbing: real receivers on loopback (an HTTP server that records what it was sent and
 * answers what the test says; a real SMTP server from the smtp-server package) and the alerts
 * room on a movable clock, with loopback allowed as ALERT_ALLOWED_HOSTS would allow it.
 */

export interface Received {
  path: string
  headers: IncomingHttpHeaders
  body: string
}

export interface Receiver {
  url: string
  got: Received[]
  /** The status the next requests get (200 by default). */
  status: number
  close: () => Promise<void>
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const r: Receiver = { url: '', got: [], status: 200, close: async () => {} }
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      r.got.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      res.writeHead(r.status, { 'content-type': 'text/plain' }).end('ok')
    })
  })
  await new Promise<void>((ok) => server.listen(port, '127.0.0.1', ok))
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  r.close = async () => {
    server.closeAllConnections()
    await new Promise<void>((ok) => server.close(() => ok()))
  }
  return r
}

export interface Mailbox {
  url: string
  mails: Array<{ from: string; to: string[]; raw: string }>
  close: () => Promise<void>
}

/** A real SMTP server on loopback, no TLS offered (nodemailer then sends in the clear, as on a LAN relay). */
export async function startMailbox(): Promise<Mailbox> {
  const box: Mailbox = { url: '', mails: [], close: async () => {} }
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        box.mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((t) => t.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        })
        callback()
      })
    },
  })
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
  const port = (server.server.address() as AddressInfo).port
  box.url = `smtp://127.0.0.1:${port}`
  box.close = () => new Promise<void>((ok) => server.close(() => ok()))
  return box
}

export const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'

export function testConfig(envChannels: EnvChannel[], more: Partial<AlertsConfig> = {}): AlertsConfig {
  return {
    publicUrl: 'https://switchboard.example.com',
    evalIntervalMs: 60_000,
    allowedHosts: ['127.0.0.1'],
    smtpUrl: null,
    from: null,
    envChannels,
    ...more,
  }
}

export interface Clock {
  now: number
}

export const newClock = (): Clock => ({ now: Date.parse('2026-06-01T09:00:00Z') })

export function openAlerts(db: Db, cfg: AlertsConfig, clock: Clock, more: Partial<AlertsDeps> = {}): Alerts {
  return createAlerts(cfg, { db, now: () => clock.now, log: () => {}, addressProblem, timers: false, ...more })
}

/** The alerts tables emptied (the rules back to their defaults), between tests on one database. */
export async function clearAlerts(db: Db): Promise<void> {
  await db.query(
    `TRUNCATE alert_outbox, alert_attempts, alert_alerts, alert_silences, alert_channels, alert_findings, alert_checks RESTART IDENTITY CASCADE`,
  )
  await db.query(`UPDATE alert_rules SET enabled = true`)
  await db.query(`TRUNCATE index_quarter_hours, desk_threads, desk_opt_periods`)
  await db.query(`DELETE FROM index_numbers`)
}

/**
 * The check a witness makes offline, written here from the documented signed text rather than
 * taken from the server's code: the key is the one the notice itself carries.
 */
export function headVerifies(h: LogHead): boolean {
  const text = `switchboard access-log head\n${h.seq}\n${h.hash}\n${h.at}\n`
  return verify(null, Buffer.from(text), createPublicKey(h.publicKey), Buffer.from(h.sig, 'base64'))
}
