import { z } from 'zod'
import { ALERTS_ANSWERS, type AlertsAnswer } from '../../contract/alerts-api.ts'
import type { Db } from '../db/types.ts'
import { ProxyError, invalid } from '../errors.ts'
import { answering, route, type RequestContext, type RouteSpec } from '../http-types.ts'
import { jsonBody, NO_PARAMS, NO_QUERY } from '../schema.ts'
import { emailList, httpUrlProblem, secretProblem } from './config.ts'
import type { Decided } from './decide.ts'
import { checkTarget, TargetRefused, type TargetRules } from './post.ts'
import { isTimeZone } from './quiet-hours.ts'
import { isRuleId, RULES, type RuleId, type RuleRow } from './rules.ts'
import { newSecret } from './signing.ts'
import { acknowledge } from './sql/ack.ts'
import { firingAlerts, resolvedAlerts, type AlertRow } from './sql/alerts-read.ts'
import { deleteChannel, insertChannel, updateChannel, type ChannelFields } from './sql/channels-write.ts'
import { recentDeliveries } from './sql/outbox-list.ts'
import { readRules } from './sql/rules-read.ts'
import { writeRule } from './sql/rules-write.ts'
import { activeSilences, addSilence, endSilence } from './sql/silences.ts'
import type { Channel, ChannelKind, Delivery } from './types.ts'
import { witnessRoute, type WitnessDeps } from './witness-routes.ts'

/**
 * /api/alerts/*: anyone signed in reads the Alerts page (what fires, the history, the rules, the
 * channels with their delivery logs); admins change rules and channels, acknowledge and silence,
 * each change an access-log entry stored before the change takes effect (no entry, no change);
 * they also send the access log's signed head to the witness channels now (witness-routes.ts).
 * A channel's secret (a webhook's whsec_, a Slack URL, which is its own secret) never leaves the
 * server once saved: the page shows that it is set.
 */

export interface RoutesDeps {
  db: Db
  now: () => Date
  channels: () => Promise<Channel[]>
  channelById: (id: string) => Promise<Channel | null>
  envChannelIds: ReadonlySet<string>
  target: TargetRules
  emailReady: boolean
  sendTest: (c: Channel, by: string) => Promise<Delivery>
  witness: WitnessDeps
  evaluate: () => Promise<Decided>
}

/** What the browser sees of a channel: where it goes in outline, never a secret. */
export function publicChannel(c: Channel) {
  let target = c.target
  if (c.kind !== 'email') {
    try {
      // The path of a webhook or Slack URL often is the secret (hooks.slack.com/services/T…/B…/…).
      target = `${new URL(c.target).origin}/…`
    } catch {
      target = '…'
    }
  }
  return {
    id: c.id,
    kind: c.kind,
    name: c.name,
    target,
    secret: c.kind === 'slack' || c.secret ? ('set' as const) : null,
    enabled: c.enabled,
    details: c.details,
    witness: c.witness,
    quietStart: c.quietStart,
    quietEnd: c.quietEnd,
    quietZone: c.quietZone,
    source: c.source,
  }
}

/** An alert as the page lists it: customer phones stay out (the page links to the rows instead). */
const publicAlert = ({ phones: _phones, ...a }: AlertRow) => ({ ...a, ruleTitle: RULES[a.rule as RuleId]?.title ?? a.rule })

/** A rule as the page shows it: its words and defaults beside what is stored. */
const publicRule = (r: RuleRow) => ({
  ...r,
  title: RULES[r.id].title,
  about: RULES[r.id].about,
  group: RULES[r.id].group,
  defaults: RULES[r.id].defaults,
})

const by = (ctx: RequestContext) => ctx.principal?.name ?? 'local'

/**
 * The `:id` of a path, as text: what it names is checked by the handler (a 404 naming it), so a
 * request whose only fault is elsewhere (an unknown query parameter) is refused for that.
 */
const PATH_ID = z.object({ id: z.string() })
const notFound = (what: string, id: string) =>
  new ProxyError(404, { kind: 'not_found', field: 'id', message: `There is no ${what} ${id.slice(0, 40)}.` })
const wholeId = (id: string, what: string) => {
  if (!/^[1-9]\d{0,17}$/.test(id)) throw notFound(what, id)
  return id
}

const RULE_CHANGE = jsonBody(
  {
    enabled: z.boolean({ error: 'enabled must be true or false.' }).optional(),
    urgent: z.boolean({ error: 'urgent must be true or false.' }).optional(),
    reminderMinutes: z
      .number({ error: 'reminderMinutes must be a number.' })
      .int('reminderMinutes must be a whole number.')
      .min(5, 'reminderMinutes must be at least 5.')
      .max(10_080, 'reminderMinutes must be at most 10080 (a week).')
      .optional(),
    params: z.record(z.string(), z.number({ error: 'each threshold must be a number.' })).optional(),
  },
  (name) => `Unknown field ${name}; send enabled, urgent, reminderMinutes or params.`,
)

const hour = (what: string) =>
  z
    .number({ error: `${what} must be an hour (0 to 23) or null.` })
    .int(`${what} must be a whole hour.`)
    .min(0, `${what} must be 0 to 23.`)
    .max(23, `${what} must be 0 to 23.`)
    .nullable()

const CHANNEL_SHAPE = {
  name: z.string({ error: 'name must be text.' }).trim().min(1, 'name must not be empty.').max(80, 'name must be at most 80 characters.'),
  target: z
    .string({ error: 'target must be text.' })
    .trim()
    .min(1, 'target must not be empty.')
    .max(2000, 'target must be at most 2000 characters.'),
  secret: z.string({ error: 'secret must be text.' }).trim().max(200, 'secret must be at most 200 characters.'),
  enabled: z.boolean({ error: 'enabled must be true or false.' }),
  details: z.boolean({ error: 'details must be true or false.' }),
  witness: z.boolean({ error: 'witness must be true or false.' }),
  quietStart: hour('quietStart'),
  quietEnd: hour('quietEnd'),
  quietZone: z
    .string({ error: 'quietZone must be text.' })
    .refine(isTimeZone, { message: 'quietZone must be an IANA time zone such as Europe/Paris or UTC.' }),
}
const unknownChannelField = (name: string) => `Unknown field ${name}; send kind, ${Object.keys(CHANNEL_SHAPE).join(', ')}.`
const NEW_CHANNEL = jsonBody(
  {
    kind: z.enum(['webhook', 'slack', 'email'], { error: 'kind must be webhook, slack or email.' }),
    ...CHANNEL_SHAPE,
    secret: CHANNEL_SHAPE.secret.optional(),
    enabled: CHANNEL_SHAPE.enabled.optional(),
    details: CHANNEL_SHAPE.details.optional(),
    witness: CHANNEL_SHAPE.witness.optional(),
    quietStart: CHANNEL_SHAPE.quietStart.optional(),
    quietEnd: CHANNEL_SHAPE.quietEnd.optional(),
    quietZone: CHANNEL_SHAPE.quietZone.optional(),
  },
  unknownChannelField,
)
const CHANNEL_CHANGE = jsonBody(
  {
    name: CHANNEL_SHAPE.name.optional(),
    target: CHANNEL_SHAPE.target.optional(),
    secret: CHANNEL_SHAPE.secret.optional(),
    enabled: CHANNEL_SHAPE.enabled.optional(),
    details: CHANNEL_SHAPE.details.optional(),
    witness: CHANNEL_SHAPE.witness.optional(),
    quietStart: CHANNEL_SHAPE.quietStart.optional(),
    quietEnd: CHANNEL_SHAPE.quietEnd.optional(),
    quietZone: CHANNEL_SHAPE.quietZone.optional(),
  },
  unknownChannelField,
)

const SILENCE = jsonBody(
  {
    rule: z.string().refine(isRuleId, { message: 'rule must name a rule.' }).nullable().optional(),
    number: z
      .string()
      .regex(/^\d{5,15}$/, 'number must be an owned number (digits).')
      .nullable()
      .optional(),
    until: z.iso.datetime({ offset: true, error: 'until must be a date and time (ISO 8601, e.g. 2026-06-01T18:00:00Z).' }),
  },
  (name) => `Unknown field ${name}; send rule, number and until.`,
).refine((s) => s.rule || s.number, { message: 'Silence a rule, a number, or both: send rule or number.', path: ['rule'] })

async function checkedTarget(kind: ChannelKind, target: string, d: RoutesDeps): Promise<string> {
  if (kind === 'email') {
    const { list, problem } = emailList(target)
    if (problem) throw invalid('target', `target ${problem}.`)
    if (!d.emailReady) throw invalid('kind', 'Email needs a mail server: the operator sets SMTP_URL and ALERT_FROM.')
    return list.join(', ')
  }
  const p = httpUrlProblem(target)
  if (p) throw invalid('target', `target ${p}.`)
  if (kind === 'slack' && new URL(target).protocol !== 'https:') throw invalid('target', 'A Slack incoming webhook is an https URL.')
  try {
    await checkTarget(new URL(target), d.target)
  } catch (err) {
    if (err instanceof TargetRefused) throw invalid('target', `target is refused: ${err.message}`)
    throw err
  }
  return target
}

function quietOf(start: number | null | undefined, end: number | null | undefined) {
  if ((start === null || start === undefined) !== (end === null || end === undefined))
    throw invalid('quietStart', 'Quiet hours need both quietStart and quietEnd (or neither).')
  return { quietStart: start ?? null, quietEnd: end ?? null }
}

function uiChannel(c: Channel | null, id: string): Channel {
  if (!c) throw notFound('alert channel', id)
  if (c.source === 'env')
    throw new ProxyError(409, {
      kind: 'invalid_request',
      field: 'id',
      message: "This channel is set by the server's configuration; change it there.",
    })
  return c
}

/** Every alerts route, in one table: the page's read and the rules, the channels, then acknowledging, silencing and evaluating. */
export function alertsRoutes(d: RoutesDeps): RouteSpec[] {
  return [...pageAndRuleRoutes(d), ...channelRoutes(d), ...actionRoutes(d), witnessRoute(d.witness, d.channels)]
}

/** The Alerts page's one read, and an admin's change to a rule. */
function pageAndRuleRoutes(d: RoutesDeps): RouteSpec[] {
  return [
    route({
      method: 'GET',
      path: '/api/alerts',
      access: 'signed-in',
      reads: null,
      schema: NO_PARAMS,
      response: ALERTS_ANSWERS.page,
      handle: answering(async (_ctx) => {
        const [firing, history, rules, channels, silences, deliveries, lastDaily] = await Promise.all([
          firingAlerts(d.db),
          resolvedAlerts(d.db, 100),
          readRules(d.db),
          d.channels(),
          activeSilences(d.db, d.now()),
          recentDeliveries(d.db, 100),
          d.witness.lastDaily(),
        ])
        return {
          status: 200,
          body: {
            firing: firing.map(publicAlert),
            history: history.map(publicAlert),
            rules: rules.map(publicRule),
            channels: channels.map(publicChannel),
            silences,
            deliveries,
            emailReady: d.emailReady,
            witness: { signing: d.witness.signing, lastDaily: lastDaily?.toISOString() ?? null },
          } satisfies AlertsAnswer<'page'>,
        }
      }),
    }),
    route({
      method: 'POST',
      path: '/api/alerts/rules/:id',
      access: 'admin',
      reads: null,
      schema: { querystring: NO_QUERY, body: RULE_CHANGE, params: PATH_ID },
      response: ALERTS_ANSWERS.rule,
      handle: answering(async (ctx, { body, params }) => {
        if (!isRuleId(params.id)) throw notFound(`rule (the rules are ${Object.keys(RULES).join(', ')}):`, params.id)
        const id = params.id
        const current = (await readRules(d.db)).find((r) => r.id === id)!
        const merged = { ...current.params, ...(body.params ?? {}) }
        const parsed = RULES[id].params.safeParse(merged)
        if (!parsed.success) {
          const issue = parsed.error.issues[0]!
          throw invalid(String(issue.path[0] ?? 'params'), issue.message)
        }
        const next = {
          enabled: body.enabled ?? current.enabled,
          urgent: body.urgent ?? current.urgent,
          params: parsed.data as Record<string, number>,
          reminderMinutes: body.reminderMinutes ?? current.reminderMinutes,
        }
        // The entry first: a change the access log cannot record does not happen (it answers 503).
        await ctx.audit('alerts.rule', { rule: id, ...next })
        await writeRule(d.db, id, next, by(ctx), d.now())
        return { status: 200, body: { rule: publicRule((await readRules(d.db)).find((r) => r.id === id)!) } satisfies AlertsAnswer<'rule'> }
      }),
    }),
  ]
}

/** An admin's channels: add, change, remove, and send a test. */
function channelRoutes(d: RoutesDeps): RouteSpec[] {
  return [
    route({
      method: 'POST',
      path: '/api/alerts/channels',
      access: 'admin',
      reads: null,
      schema: { querystring: NO_QUERY, body: NEW_CHANNEL },
      response: ALERTS_ANSWERS.channelMade,
      handle: answering(async (ctx, { body }) => {
        const target = await checkedTarget(body.kind, body.target, d)
        let secret: string | null = null
        let shown: string | undefined
        if (body.kind === 'webhook') {
          if (body.secret) {
            const p = secretProblem(body.secret)
            if (p) throw invalid('secret', `secret ${p}; or leave it empty for one made for you.`)
            secret = body.secret
          } else secret = shown = newSecret()
        } else if (body.secret) throw invalid('secret', 'Only a webhook has a signing secret.')
        const fields: ChannelFields = {
          name: body.name,
          target,
          secret,
          enabled: body.enabled ?? true,
          details: body.details ?? false,
          witness: body.witness ?? false,
          ...quietOf(body.quietStart, body.quietEnd),
          quietZone: body.quietZone ?? 'UTC',
        }
        await ctx.audit('alerts.channel', {
          change: 'add',
          kind: body.kind,
          name: fields.name,
          details: fields.details,
          ...(fields.witness ? { witness: true } : {}),
        })
        const id = await insertChannel(d.db, body.kind, fields)
        const saved = (await d.channelById(id))!
        // A secret made here is shown this once, for the receiver's configuration.
        return {
          status: 201,
          body: { channel: publicChannel(saved), ...(shown ? { secretOnce: shown } : {}) } satisfies AlertsAnswer<'channelMade'>,
        }
      }),
    }),
    route({
      method: 'POST',
      path: '/api/alerts/channels/:id',
      access: 'admin',
      reads: null,
      schema: { querystring: NO_QUERY, body: CHANNEL_CHANGE, params: PATH_ID },
      response: ALERTS_ANSWERS.channel,
      handle: answering(async (ctx, { body, params }) => {
        const c = uiChannel(await d.channelById(params.id), params.id)
        const target = body.target !== undefined ? await checkedTarget(c.kind, body.target, d) : c.target
        let secret: string | undefined
        if (body.secret) {
          if (c.kind !== 'webhook') throw invalid('secret', 'Only a webhook has a signing secret.')
          const p = secretProblem(body.secret)
          if (p) throw invalid('secret', `secret ${p}.`)
          secret = body.secret
        }
        const fields: ChannelFields = {
          name: body.name ?? c.name,
          target,
          ...(secret !== undefined ? { secret } : {}),
          enabled: body.enabled ?? c.enabled,
          details: body.details ?? c.details,
          witness: body.witness ?? c.witness,
          ...quietOf(
            body.quietStart !== undefined ? body.quietStart : c.quietStart,
            body.quietEnd !== undefined ? body.quietEnd : c.quietEnd,
          ),
          quietZone: body.quietZone ?? c.quietZone,
        }
        await ctx.audit('alerts.channel', {
          channel: c.id,
          change: 'change',
          fields: Object.keys(body).filter((k) => k !== 'secret'),
          ...(secret !== undefined ? { secretReplaced: true } : {}),
          ...(body.details !== undefined && body.details !== c.details ? { details: body.details } : {}),
          ...(body.witness !== undefined && body.witness !== c.witness ? { witness: body.witness } : {}),
        })
        await updateChannel(d.db, c.id, fields, d.now())
        return { status: 200, body: { channel: publicChannel((await d.channelById(c.id))!) } satisfies AlertsAnswer<'channel'> }
      }),
    }),
    route({
      method: 'DELETE',
      path: '/api/alerts/channels/:id',
      access: 'admin',
      reads: null,
      schema: { querystring: NO_QUERY, params: PATH_ID },
      response: ALERTS_ANSWERS.channelDeleted,
      handle: answering(async (ctx, { params }) => {
        const c = uiChannel(await d.channelById(params.id), params.id)
        await ctx.audit('alerts.channel', { channel: c.id, change: 'remove' })
        await deleteChannel(d.db, c.id)
        return { status: 200, body: { deleted: true } satisfies AlertsAnswer<'channelDeleted'> }
      }),
    }),
    route({
      method: 'POST',
      path: '/api/alerts/test/:id',
      access: 'admin',
      reads: null,
      schema: { querystring: NO_QUERY, params: PATH_ID },
      response: ALERTS_ANSWERS.test,
      handle: answering(async (ctx, { params }) => {
        const c = await d.channelById(params.id)
        if (!c) throw notFound('alert channel', params.id)
        await ctx.audit('alerts.test', { channel: c.id })
        const result = await d.sendTest(c, by(ctx))
        return { status: 200, body: { result } satisfies AlertsAnswer<'test'> }
      }),
    }),
  ]
}

/** An admin's acknowledgements and silences, and an evaluation of every rule on demand. */
function actionRoutes(d: RoutesDeps): RouteSpec[] {
  return [
    route({
      method: 'POST',
      path: '/api/alerts/ack/:id',
      access: 'admin',
      reads: null,
      schema: { querystring: NO_QUERY, params: PATH_ID },
      response: ALERTS_ANSWERS.acknowledged,
      handle: answering(async (ctx, { params }) => {
        const id = wholeId(params.id, 'firing alert')
        const gone = () =>
          new ProxyError(404, { kind: 'not_found', field: 'id', message: `Alert ${id} is not firing, or is acknowledged already.` })
        const open = await d.db.query(`SELECT 1 FROM alert_alerts WHERE id = $1::bigint AND state = 'firing' AND acked_at IS NULL`, [id])
        if (open.rows.length === 0) throw gone()
        await ctx.audit('alerts.ack', { alert: id })
        if (!(await acknowledge(d.db, id, by(ctx), d.now()))) throw gone()
        return { status: 200, body: { acknowledged: true } satisfies AlertsAnswer<'acknowledged'> }
      }),
    }),
    route({
      method: 'POST',
      path: '/api/alerts/silences',
      access: 'admin',
      reads: null,
      schema: { querystring: NO_QUERY, body: SILENCE },
      response: ALERTS_ANSWERS.silenceMade,
      handle: answering(async (ctx, { body }) => {
        const until = new Date(body.until)
        const now = d.now()
        if (until.getTime() <= now.getTime()) throw invalid('until', 'until must be in the future.')
        if (until.getTime() - now.getTime() > 90 * 86_400_000)
          throw invalid('until', 'A silence lasts at most 90 days; turn the rule off instead.')
        await ctx.audit('alerts.silence', { rule: body.rule ?? null, number: body.number ?? null, until: until.toISOString() })
        const id = await addSilence(d.db, { rule: body.rule ?? null, number: body.number ?? null, until, by: by(ctx), now })
        return {
          status: 201,
          body: {
            silence: (await activeSilences(d.db, now)).find((s) => s.id === id) ?? null,
          } satisfies AlertsAnswer<'silenceMade'>,
        }
      }),
    }),
    route({
      method: 'DELETE',
      path: '/api/alerts/silences/:id',
      access: 'admin',
      reads: null,
      schema: { querystring: NO_QUERY, params: PATH_ID },
      response: ALERTS_ANSWERS.silenceEnded,
      handle: answering(async (ctx, { params }) => {
        const id = wholeId(params.id, 'silence')
        const found = await d.db.query(`SELECT 1 FROM alert_silences WHERE id = $1::bigint`, [id])
        if (found.rows.length === 0) throw notFound('silence', id)
        await ctx.audit('alerts.silence', { silence: id, ended: true })
        await endSilence(d.db, id)
        return { status: 200, body: { ended: true } satisfies AlertsAnswer<'silenceEnded'> }
      }),
    }),
    route({
      method: 'POST',
      path: '/api/alerts/evaluate',
      access: 'admin',
      reads: null,
      schema: NO_PARAMS,
      response: ALERTS_ANSWERS.evaluated,
      handle: answering(async (_ctx) => ({ status: 200, body: { evaluated: await d.evaluate() } satisfies AlertsAnswer<'evaluated'> })),
    }),
  ]
}
