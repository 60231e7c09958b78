import nodemailer from 'nodemailer'
import { postJson, type TargetRules } from './post.ts'
import { slackBody, subjectLine, textOf } from './render.ts'
import { sign } from './signing.ts'
import type { Channel, Delivery, Notice } from './types.ts'

/**
 * One attempt of one notice on one channel. The idempotency key goes with every attempt: the
 * Standard Webhooks `webhook-id` on a webhook (and on a Slack post, which ignores it), the
 * Message-ID of an email, so a receiver that saw an attempt whose answer was lost drops the repeat.
 */

export interface Mailer {
  from: string
  send: (msg: { to: string; subject: string; text: string; messageId: string }) => Promise<void>
  close: () => void
}

export function createMailer(smtpUrl: string, from: string): Mailer {
  // nodemailer upgrades with STARTTLS when the server offers it (smtp://) or speaks TLS from the
  // start (smtps://); `?requireTLS=true` in the URL refuses a server that does not offer it.
  const transport = nodemailer.createTransport(smtpUrl, { from })
  return {
    from,
    send: async (m) => {
      await transport.sendMail({ from, to: m.to, subject: m.subject, text: m.text, messageId: m.messageId })
    },
    close: () => transport.close(),
  }
}

export interface SendDeps {
  target: TargetRules
  mailer: Mailer | null
  /** Seconds since the epoch for webhook-timestamp (the attempt's own time). */
  nowSeconds: () => number
  timeoutMs?: number
}

export async function deliver(channel: Channel, key: string, notice: Notice, deps: SendDeps): Promise<Delivery> {
  if (channel.kind === 'email') {
    const t0 = performance.now()
    if (!deps.mailer) return { ok: false, status: null, ms: 0, error: 'No mail server is configured (SMTP_URL, ALERT_FROM).' }
    try {
      const host = deps.mailer.from.replace(/^.*@/, '').replace(/>.*$/, '') || 'switchboard'
      await deps.mailer.send({ to: channel.target, subject: subjectLine(notice), text: textOf(notice), messageId: `<${key}@${host}>` })
      return { ok: true, status: 250, ms: Math.round(performance.now() - t0), error: null }
    } catch (err) {
      const e = err as { responseCode?: number; message?: string }
      return {
        ok: false,
        status: e.responseCode ?? null,
        ms: Math.round(performance.now() - t0),
        error: `The mail server refused: ${e.message ?? String(err)}`,
      }
    }
  }
  const timestamp = deps.nowSeconds()
  if (channel.kind === 'slack') {
    return postJson(channel.target, JSON.stringify(slackBody(notice)), { 'webhook-id': key }, deps.target, deps.timeoutMs)
  }
  const body = JSON.stringify({ type: notice.type, timestamp: new Date(timestamp * 1000).toISOString(), data: notice })
  const headers: Record<string, string> = { 'webhook-id': key, 'webhook-timestamp': String(timestamp) }
  if (channel.secret) headers['webhook-signature'] = sign(channel.secret, key, timestamp, body)
  return postJson(channel.target, body, headers, deps.target, deps.timeoutMs)
}
