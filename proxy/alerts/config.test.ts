import { describe, expect, it } from 'vitest'
import { addressProblem } from '../kernel/outbound-address.ts'
import { parseAlertsConfig } from './config.ts'

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
const parse = (env: Record<string, string>) => parseAlertsConfig(env, addressProblem)

describe('the alerts variables', () => {
  it('default to no channel, links without a base, and an evaluation a minute', () => {
    expect(parse({})).toEqual({
      config: { publicUrl: null, evalIntervalMs: 60_000, allowedHosts: [], smtpUrl: null, from: null, envChannels: [] },
      issues: [],
    })
  })

  it('declare the three channels', () => {
    const { config, issues } = parse({
      PUBLIC_URL: 'https://sb.example.com/',
      ALERT_EVAL_INTERVAL: '30',
      ALERT_WEBHOOK_URL: 'https://hooks.example.com/in',
      ALERT_WEBHOOK_SECRET: SECRET,
      ALERT_SLACK_URL: 'https://hooks.slack.com/services/T/B/x',
      ALERT_EMAIL_TO: 'ops@example.com, desk@example.com',
      SMTP_URL: 'smtp://mail.example.com:587',
      ALERT_FROM: 'Switchboard <alerts@example.com>',
      ALERT_WITNESS: 'webhook, Email',
    })
    expect(issues).toEqual([])
    expect(config!.publicUrl).toBe('https://sb.example.com')
    expect(config!.evalIntervalMs).toBe(30_000)
    expect(config!.envChannels.map((c) => c.id)).toEqual(['env-webhook', 'env-slack', 'env-email'])
    expect(config!.envChannels.filter((c) => c.witness).map((c) => c.id)).toEqual(['env-webhook', 'env-email'])
  })

  it('refuse a witness that is not a channel kind, or names a channel not declared', () => {
    expect(parse({ ALERT_WITNESS: 'webhook,sms' }).issues).toEqual([
      expect.stringMatching(/^ALERT_WITNESS names webhook, but ALERT_WEBHOOK_URL is not set/),
      expect.stringMatching(/^ALERT_WITNESS must list webhook, slack or email.*"sms"/),
    ])
    expect(parse({ ALERT_SLACK_URL: 'https://hooks.slack.com/services/T/B/x', ALERT_WITNESS: 'slack' }).config!.envChannels).toEqual([
      expect.objectContaining({ id: 'env-slack', witness: true }),
    ])
  })

  it('report every problem at once, each naming its variable', () => {
    const { config, issues } = parse({
      PUBLIC_URL: 'ftp://x',
      ALERT_EVAL_INTERVAL: '1',
      ALERT_ALLOWED_HOSTS: 'a/b',
      ALERT_WEBHOOK_URL: 'http://127.0.0.1:9/hook',
      ALERT_WEBHOOK_SECRET: 'plain',
      ALERT_SLACK_URL: 'not a url',
      ALERT_EMAIL_TO: 'nobody',
      ALERT_FROM: 'x',
      ALERT_WITNESS: 'pager',
    })
    expect(config).toBeNull()
    const names = [
      'PUBLIC_URL',
      'ALERT_EVAL_INTERVAL',
      'ALERT_ALLOWED_HOSTS',
      'ALERT_WEBHOOK_URL',
      'ALERT_WEBHOOK_SECRET',
      'ALERT_SLACK_URL',
      'ALERT_EMAIL_TO',
      'ALERT_FROM',
      'ALERT_WITNESS',
    ]
    for (const n of names)
      expect(
        issues.some((i) => i.startsWith(n)),
        `${n} in ${issues.join('\n')}`,
      ).toBe(true)
    expect(issues.find((i) => i.startsWith('ALERT_WEBHOOK_URL'))).toMatch(/loopback address; add its host to ALERT_ALLOWED_HOSTS/)
    expect(
      parse({ ALERT_WEBHOOK_URL: 'http://127.0.0.1:9/hook', ALERT_WEBHOOK_SECRET: SECRET, ALERT_ALLOWED_HOSTS: '127.0.0.1:9' }).issues,
    ).toEqual([])
    expect(parse({ ALERT_WEBHOOK_URL: 'https://h.example.com' }).issues).toEqual([
      expect.stringMatching(/^ALERT_WEBHOOK_SECRET is required/),
    ])
    expect(parse({ SMTP_URL: 'http://mail' }).issues).toEqual([
      expect.stringMatching(/^SMTP_URL must be/),
      expect.stringMatching(/^ALERT_FROM is required/),
    ])
  })
})
