import type { LogHead, Notice, NoticeAlert } from './types.ts'

/**
 * A notice in each channel's form. Customer phones appear only when the notice carries them
 * (channels with details turned on); message bodies never do.
 */

const VERB: Record<Notice['type'], string> = {
  'alert.firing': 'Firing',
  'alert.reminder': 'Still firing',
  'alert.resolved': 'Resolved',
  'alert.test': 'Test',
  'log.head': 'Witness',
}

/** Plain text: no markup, one line per alert. */
const clean = (s: string) => s.replace(/[\u0000-\u001f\u007f]/g, ' ')

function alertLine(a: NoticeAlert): string {
  const where = a.number ? ` (${a.number})` : a.subject !== 'all' ? ` (${clean(a.subject)})` : ''
  const since = a.resolvedAt ? `from ${a.since} to ${a.resolvedAt}` : `since ${a.since}`
  const phones = a.phones?.length ? ` Customers: ${a.phones.join(', ')}.` : ''
  return `${clean(a.title)}${where}: ${clean(a.detail)} (${since}).${phones}${a.link ? ` ${a.link}` : ''}`
}

export function subjectLine(n: Notice): string {
  const many = n.alerts.length > 1 ? ` (${n.alerts.length} alerts)` : ''
  return `[Switchboard] ${VERB[n.type]}: ${n.ruleTitle}${many}`
}

/**
 * A witness notice's body: the head, what was signed, the key, and the heads-file line that
 * `npm run users -- verify-log --anchor` reads, so the copy kept is enough to check the log later.
 */
function headLines(h: LogHead): string[] {
  return [
    "This server signed the head of its access log. Keep this message where the server's operators cannot change it: it shows later whether the log was cut or rewritten.",
    '',
    `Entry: ${h.seq}`,
    `Hash: ${h.hash}`,
    `Signed at: ${h.at}`,
    `Signature (Ed25519, base64): ${h.sig}`,
    `Signed text: "switchboard access-log head\\n${h.seq}\\n${h.hash}\\n${h.at}\\n"`,
    'Public key:',
    h.publicKey.trim(),
    '',
    'Heads-file line (npm run users -- verify-log --anchor FILE):',
    JSON.stringify({ seq: h.seq, hash: h.hash, at: h.at, sig: h.sig }),
  ]
}

export function textOf(n: Notice): string {
  if (n.head) return [subjectLine(n).replace('[Switchboard] ', ''), '', ...headLines(n.head)].join('\n')
  const lines = [subjectLine(n).replace('[Switchboard] ', ''), '', ...n.alerts.map((a) => `• ${alertLine(a)}`)]
  if (n.link) lines.push('', `Alerts: ${n.link}`)
  return lines.join('\n')
}

/** Slack's incoming-webhook body: `text` as the fallback, `blocks` as shown (mrkdwn escaped). */
export function slackBody(n: Notice): { text: string; blocks: unknown[] } {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
  const link = (url: string | null, label: string) => (url ? `<${esc(url)}|${esc(label)}>` : esc(label))
  if (n.head)
    return {
      text: subjectLine(n),
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: n.ruleTitle } },
        { type: 'section', text: { type: 'mrkdwn', text: `\`\`\`${esc(headLines(n.head).join('\n'))}\`\`\``.slice(0, 3000) } },
      ],
    }
  return {
    text: subjectLine(n),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: `${VERB[n.type]}: ${n.ruleTitle}`.slice(0, 150) } },
      ...n.alerts.slice(0, 20).map((a) => ({
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `${link(a.link, a.title + (a.number ? ` (${a.number})` : ''))}\n${esc(alertLine({ ...a, link: null }))}`.slice(0, 3000),
        },
      })),
      ...(n.alerts.length > 20 ? [{ type: 'context', elements: [{ type: 'mrkdwn', text: `and ${n.alerts.length - 20} more` }] }] : []),
      ...(n.link ? [{ type: 'context', elements: [{ type: 'mrkdwn', text: link(n.link, 'Open Alerts in Switchboard') }] }] : []),
    ],
  }
}
