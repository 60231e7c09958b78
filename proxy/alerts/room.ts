import type { MetaPart } from '../../contract/meta-api.ts'
import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { Db } from '../db/types.ts'
import type { RouteSpec } from '../http-types.ts'
import type { AlertsConfig } from './config.ts'
import type { Verdict } from './conditions/access-log.ts'
import { gatherConditions } from './conditions/gather.ts'
import { decide, type Decided } from './decide.ts'
import type { Resolved } from './post.ts'
import { RULES, type RuleId } from './rules.ts'
import { alertsRoutes } from './routes.ts'
import { createMailer, deliver, type Mailer, type SendDeps } from './send.ts'
import { firingAlerts } from './sql/alerts-read.ts'
import { storedChannel, storedChannels } from './sql/channels-read.ts'
import { recordFinding, type WatchFinding } from './sql/findings.ts'
import { claimDue, type Claimed } from './sql/outbox-claim.ts'
import { enqueueClaimed } from './sql/outbox-enqueue.ts'
import { purgeSettled } from './sql/outbox-purge.ts'
import { settle } from './sql/outbox-settle.ts'
import { readRules } from './sql/rules-read.ts'
import { lastDailyWitness } from './sql/witness-day.ts'
import type { Channel, Delivery, Notice } from './types.ts'
import { dailyWitness, sendWitnessNow, type LatestSignedHead } from './witness.ts'

/**
 * The alerts room: rules evaluated every ALERT_EVAL_INTERVAL, their notices written to the outbox
 * with the decision, and a sender that drains the outbox (on start, after each evaluation, and
 * every second for retries that come due). It reads other rooms' tables by its own SQL, and what
 * it cannot read (the access log's verification, the callback watch's findings, the media
 * address rules) comes through hooks the composition root (proxy/rooms.ts) hands it.
 */

export interface AlertsDeps {
  db: Db
  /** The clock (tests move it); every time the room writes comes from it. */
  now?: () => number
  log?: (line: string) => void
  /** access.verifyLog: the access log's chain recomputed. */
  verifyLog?: (() => Promise<Verdict>) | null
  /** access.latestSignedHead: the access log's head signed now, for witnesses; null without a signing key. */
  latestSignedHead?: LatestSignedHead | null
  /** Why an address may not be reached (proxy/kernel/outbound-address.ts addressProblem). */
  addressProblem: (address: string) => string | null
  /** DNS for webhook targets (tests point names at loopback). */
  resolve?: (hostname: string) => Promise<Resolved[]>
  /** Evaluate and send on timers (default); tests drive `evaluate` and `drain` themselves. */
  timers?: boolean
  /** How long a claim holds before another sender may take the row over (default 2 min). */
  leaseMs?: number
  sendTimeoutMs?: number
}

export interface Alerts {
  routes: RouteSpec[]
  /** The callback watch's findings (wired by rooms.ts); never rejects. */
  onWatchFinding: (f: WatchFinding) => Promise<void>
  evaluate: () => Promise<Decided>
  /** Sends what is due now; resolves with how many attempts were made. */
  drain: () => Promise<number>
  /** The daily witness notices, if today's have not gone (witness.ts); resolves with how many were written. */
  witnessDue: () => Promise<number>
  channels: () => Promise<Channel[]>
  meta: () => MetaPart
  close: () => Promise<void>
}

const BATCH = 20

export function createAlerts(cfg: AlertsConfig, deps: AlertsDeps): Alerts {
  const { db } = deps
  const now = () => new Date((deps.now ?? Date.now)())
  const log = deps.log ?? ((line: string) => console.error(line))
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
  const leaseMs = deps.leaseMs ?? 120_000
  const mailer: Mailer | null = cfg.smtpUrl && cfg.from ? createMailer(cfg.smtpUrl, cfg.from) : null
  const envChannels = configuredChannels(cfg)
  const sendDeps: SendDeps = {
    target: { allowedHosts: cfg.allowedHosts, addressProblem: deps.addressProblem, resolve: deps.resolve },
    mailer,
    nowSeconds: () => Math.floor(now().getTime() / 1000),
    timeoutMs: deps.sendTimeoutMs,
  }
  let closed = false

  const channels = async () => [...envChannels, ...(await storedChannels(db))]
  const channelById = async (id: string) => envChannels.find((c) => c.id === id) ?? (await storedChannel(db, id))

  async function sendClaimed(row: Claimed): Promise<Delivery> {
    const channel = await channelById(row.channel)
    const d: Delivery = channel
      ? await deliver(channel, row.key, row.notice, sendDeps)
      : { ok: false, status: null, ms: 0, error: 'The channel no longer exists.' }
    // A test is tried once: the admin who asked it sees the answer now.
    const state = await settle(db, row, owner, d, now(), { retry: row.kind !== 'test' && channel !== null })
    if (state === 'dead')
      log(`alerts: notice ${row.key} to channel ${row.channel} is dead after ${row.attempts} attempt(s): ${d.error ?? ''}`)
    return d
  }

  let draining: Promise<number> | null = null
  const drain = (): Promise<number> => {
    draining ??= (async () => {
      let n = 0
      try {
        for (;;) {
          const rows = await claimDue(db, owner, now(), BATCH, leaseMs)
          if (rows.length === 0) break
          await Promise.all(rows.map((r) => sendClaimed(r)))
          n += rows.length
          if (closed) break
        }
      } finally {
        draining = null
      }
      return n
    })()
    return draining
  }

  let evaluating: Promise<Decided> | null = null
  const evaluate = (): Promise<Decided> => {
    evaluating ??= (async () => {
      try {
        return await evaluateOnce(db, now(), { verifyLog: deps.verifyLog ?? null, channels, log, publicUrl: cfg.publicUrl })
      } finally {
        evaluating = null
      }
    })()
    return evaluating
  }

  /** A test notice on one channel, sent now: its outcome is the answer (and the delivery log's entry). */
  async function sendTest(channel: Channel, by: string): Promise<Delivery> {
    const at = now()
    return sendClaimed(await enqueueClaimed(db, owner, { channel, kind: 'test', notice: testNotice(at, by, cfg.publicUrl), at }))
  }

  const witnessDue = async () => dailyWitness(db, now(), { channels: await channels(), latestSignedHead: deps.latestSignedHead ?? null })

  const timers: NodeJS.Timeout[] = []
  const guard = (what: string, p: () => Promise<unknown>) => () => {
    if (closed) return
    p().catch((err: unknown) => log(`alerts: ${what} failed: ${err instanceof Error ? err.message : String(err)}`))
  }
  if (deps.timers ?? true) {
    // What a previous run left pending goes out first.
    setImmediate(guard('sending', drain))
    timers.push(setInterval(guard('sending', drain), 1000))
    timers.push(
      setInterval(
        guard('evaluation', () => evaluate().then(() => drain())),
        cfg.evalIntervalMs,
      ),
    )
    // The daily witness notice goes at the first interval of each UTC day (and after a start).
    timers.push(
      setInterval(
        guard('the witness notice', () => witnessDue().then(() => drain())),
        cfg.evalIntervalMs,
      ),
    )
    for (const t of timers) t.unref()
  }

  const routes = alertsRoutes({
    db,
    now,
    channels,
    channelById,
    envChannelIds: new Set(envChannels.map((c) => c.id)),
    target: sendDeps.target,
    emailReady: mailer !== null,
    sendTest,
    witness: {
      signing: deps.latestSignedHead != null,
      lastDaily: () => lastDailyWitness(db),
      send: (to) =>
        sendWitnessNow(deps.latestSignedHead ?? null, to, now(), { enqueue: (c) => enqueueClaimed(db, owner, c), send: sendClaimed }),
    },
    evaluate: async () => {
      const d = await evaluate()
      await drain()
      return d
    },
  })

  return {
    routes,
    onWatchFinding: async (f) => {
      try {
        await recordFinding(db, f, new Date(f.at))
      } catch (err) {
        log(`alerts: a watch finding was not kept: ${err instanceof Error ? err.message : String(err)}`)
      }
    },
    evaluate,
    drain,
    witnessDue,
    channels,
    meta: () => ({ alerts: { rules: Object.keys(RULES).length, evalIntervalSeconds: cfg.evalIntervalMs / 1000, email: mailer !== null } }),
    close: async () => {
      closed = true
      for (const t of timers) clearInterval(t)
      await evaluating?.catch(() => {})
      await draining?.catch(() => {})
      mailer?.close()
    },
  }
}

/** The channels the operator declared in the environment, as the page shows them: on, no details, no quiet hours. */
function configuredChannels(cfg: AlertsConfig): Channel[] {
  return cfg.envChannels.map((c) => ({
    ...c,
    enabled: true,
    details: false,
    witness: c.witness ?? false,
    quietStart: null,
    quietEnd: null,
    quietZone: 'UTC',
    source: 'env',
  }))
}

/** One evaluation of every rule at `at`: settled notices purged, conditions gathered, decisions written with their notices. */
async function evaluateOnce(
  db: Db,
  at: Date,
  o: {
    verifyLog: (() => Promise<Verdict>) | null
    channels: () => Promise<Channel[]>
    log: (line: string) => void
    publicUrl: string | null
  },
): Promise<Decided> {
  const rules = await readRules(db)
  const open = await firingAlerts(db)
  const firing = (rule: RuleId) => new Set(open.filter((a) => a.rule === rule).map((a) => a.subject))
  await purgeSettled(db, at)
  const g = await gatherConditions(db, rules, at, { verifyLog: o.verifyLog, firing })
  for (const p of g.problems) o.log(`alerts: a rule could not be read: ${p}`)
  return decide(db, {
    rules,
    conditions: g.conditions,
    evaluated: g.evaluated,
    channels: await o.channels(),
    now: at,
    publicUrl: o.publicUrl,
  })
}

/** The notice "Send a test" sends: no alert behind it, a link to the Alerts page. */
function testNotice(at: Date, by: string, publicUrl: string | null): Notice {
  return {
    type: 'alert.test',
    rule: 'test',
    ruleTitle: 'Test notice',
    urgent: false,
    at: at.toISOString(),
    alerts: [
      {
        id: '0',
        subject: 'all',
        number: null,
        title: 'Test notice',
        detail: `A test from Switchboard, sent by ${by}. Nothing needs doing.`,
        count: null,
        since: at.toISOString(),
        resolvedAt: null,
        link: `${publicUrl ?? ''}/alerts`,
      },
    ],
    link: `${publicUrl ?? ''}/alerts`,
  }
}
