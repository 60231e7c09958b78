import { describe, expect, it } from 'vitest'
import type { OwnedNumber } from '../../api/numbers'
import {
  auditNumbers,
  auditSelectionLabel,
  auditSelectionParams,
  AUDIT_KEYS,
  checkUrl,
  dominantUrl,
  matchesAnyAudit,
  matchesAudit,
  parseAuditSelection,
  severityOf,
  toggleAudit,
} from './audit'
import { FINDING_ADVICE, findingSentence } from './audit-advice'
import { numberRowId } from './number-rows'

const base = (i: number, webhook: string | null, dlr: string | null): OwnedNumber => ({
  number: `1832323232${i}`,
  tid: `T${i}`,
  type: 'local',
  country: 'US',
  webhook,
  dlr,
})

const W = 'https://hooks.example.com/in'
const D = 'https://hooks.example.com/dlr'

describe('checkUrl', () => {
  it('flags each defect by itself', () => {
    expect(checkUrl('')).toEqual(['missing'])
    expect(checkUrl(null)).toEqual(['missing'])
    expect(checkUrl('not a url')).toEqual(['invalid_url'])
    expect(checkUrl('ftp://x.example/a')).toEqual(['invalid_url'])
    expect(checkUrl('http://hooks.example.com/a')).toEqual(['not_https'])
    expect(checkUrl('https://192.168.1.20/dlr')).toEqual(['private_host'])
    expect(checkUrl('http://localhost:8080/x')).toEqual(['not_https', 'private_host'])
    expect(checkUrl('https://printer.local/x')).toEqual(['private_host'])
    expect(checkUrl(W)).toEqual([])
  })
})

describe('dominantUrl', () => {
  it('finds a URL that clearly dominates', () => {
    expect(dominantUrl([W, W, W, W, 'https://b.example', ''])).toBe(W)
  })
  it('finds none when usage is split', () => {
    expect(dominantUrl([W, W, 'https://b.example', 'https://b.example'])).toBeNull()
    expect(dominantUrl([W, W])).toBeNull()
  })
})

describe('auditNumbers', () => {
  const rows = [
    base(0, W, D),
    base(1, W, D),
    base(2, W, D),
    base(3, W, D),
    base(4, '', D),
    base(5, W, ''),
    base(6, W, W),
    base(7, 'https://other.example/in', D),
  ]
  const result = auditNumbers(rows, numberRowId)
  const findingsOf = (n: OwnedNumber) => result.findingsById.get(numberRowId(n))
  it('labels missing, same-as-webhook and outliers, by row id', () => {
    expect(findingsOf(rows[0]!)).toEqual([])
    expect(findingsOf(rows[4]!)).toEqual(['webhook.missing'])
    expect(findingsOf(rows[5]!)).toEqual(['dlr.missing'])
    expect(findingsOf(rows[6]!)).toContain('dlr.same_as_webhook')
    // other.example is another company's domain than the usual example.com: a finding of its own besides the outlier.
    expect(findingsOf(rows[7]!)).toEqual(['webhook.other_domain', 'webhook.outlier'])
    expect(findingsOf(base(9, W, D))).toBeUndefined()
  })
  it('counts findings and endpoints', () => {
    expect(result.counts.get('dlr.missing')).toBe(1)
    expect(result.endpoints.webhook[0]).toEqual({ url: W, count: 6 })
  })
  it('gives every finding a severity in words and counts numbers per class', () => {
    expect(severityOf('webhook.missing')).toBe('problem')
    expect(severityOf('dlr.private_host')).toBe('problem')
    expect(severityOf('webhook.not_https')).toBe('problem')
    expect(severityOf('webhook.invalid_url')).toBe('problem')
    expect(severityOf('webhook.outlier')).toBe('look')
    expect(severityOf('dlr.same_as_webhook')).toBe('look')
    // rows 4, 5 and 7 (another domain) have a problem; 6 (same as webhook, and an outlier) and 7 (an outlier) are worth a look; 0–3 are clean.
    expect(result.classes).toEqual({ problem: 3, look: 2, none: 4 })
    expect(result.problemAndLook).toBe(1)
  })
  it('counts the numbers that have both a problem and a finding worth a look, so the chips can say why they add up to more', () => {
    const both = auditNumbers(
      [base(0, W, D), base(1, W, D), base(2, W, D), base(3, W, D), base(4, 'http://other.example/in', D)],
      numberRowId,
    )
    // Row 4's webhook is plain HTTP (a problem) and not the one the others use (worth a look).
    expect(both.classes).toEqual({ problem: 1, look: 1, none: 4 })
    expect(both.problemAndLook).toBe(1)
    expect(both.classes.problem + both.classes.look + both.classes.none - both.problemAndLook).toBe(5)
  })
  it('filters by class and by finding', () => {
    expect(matchesAudit([], 'none')).toBe(true)
    expect(matchesAudit(['webhook.outlier'], 'none')).toBe(false)
    expect(matchesAudit(['webhook.outlier'], 'problem')).toBe(false)
    expect(matchesAudit(['webhook.outlier', 'dlr.missing'], 'problem')).toBe(true)
    expect(matchesAudit(['webhook.outlier'], 'look')).toBe(true)
    expect(matchesAudit(['dlr.missing'], 'dlr.missing')).toBe(true)
    expect(matchesAudit(['dlr.missing'], 'webhook.missing')).toBe(false)
  })
  it('speaks plainly', () => {
    expect(findingSentence('dlr.missing', 12)).toBe('12 numbers send delivery reports nowhere')
    expect(findingSentence('webhook.missing', 1)).toBe('1 number sends incoming messages nowhere')
  })
})

describe('audit selection (several chips at once)', () => {
  it('reads severity and findings from the URL, ignoring the unknown, and old single-class links', () => {
    expect(parseAuditSelection('problem,look', null)).toEqual(['problem', 'look'])
    expect(parseAuditSelection('problem,bogus,problem', 'dlr.missing,webhook.nope')).toEqual(['problem', 'dlr.missing'])
    expect(parseAuditSelection(null, 'none')).toEqual(['none'])
    expect(parseAuditSelection(null, null)).toEqual([])
  })
  it('writes classes to severity= and findings to audit=, in a stable order', () => {
    expect(auditSelectionParams(['look', 'dlr.missing', 'problem'])).toEqual({ severity: 'problem,look', audit: 'dlr.missing' })
    expect(auditSelectionParams([])).toEqual({ severity: null, audit: null })
  })
  it('presses and releases one chip without touching the others', () => {
    expect(toggleAudit(['problem'], 'look')).toEqual(['problem', 'look'])
    expect(toggleAudit(['problem', 'look'], 'problem')).toEqual(['look'])
  })
  it('passes a row that matches any pressed chip', () => {
    expect(matchesAnyAudit([], [])).toBe(true)
    expect(matchesAnyAudit([], ['problem', 'none'])).toBe(true)
    expect(matchesAnyAudit(['webhook.outlier'], ['problem', 'none'])).toBe(false)
    expect(matchesAnyAudit(['webhook.outlier'], ['problem', 'look'])).toBe(true)
    expect(auditSelectionLabel(['problem', 'look', 'none'])).toBe('Any problem, Worth a look or No findings')
  })
})

describe('the audit’s sharper findings', () => {
  it('names the cloud metadata address apart from any private host', () => {
    expect(checkUrl('https://169.254.169.254/latest')).toEqual(['private_host', 'metadata_host'])
    expect(checkUrl('http://metadata.google.internal/computeMetadata/v1/')).toContain('metadata_host')
    expect(checkUrl('https://printer.local/dlr')).not.toContain('metadata_host')
  })

  it('flags a callback on another company’s domain, not one on the account’s own', () => {
    const n = (number: string, webhook: string) => ({ number, tid: 'T', type: 'local', country: 'US', webhook, dlr: null }) as const
    const own = 'https://hooks.acme.example/in'
    const list = [
      n('1', own),
      n('2', own),
      n('3', own),
      n('4', 'https://other.acme.example/in'),
      n('5', 'https://hooks.rival.example.net/in'),
    ]
    const audit = auditNumbers(list, (x) => x.number)
    expect(audit.findingsById.get('4')).toEqual(['webhook.outlier', 'dlr.missing'])
    expect(audit.findingsById.get('5')).toEqual(['webhook.other_domain', 'webhook.outlier', 'dlr.missing'])
    expect(severityOf('webhook.other_domain')).toBe('problem')
  })

  it('says why every finding matters and how to fix it', () => {
    for (const key of AUDIT_KEYS) {
      const advice = FINDING_ADVICE[key.split('.')[1] as keyof typeof FINDING_ADVICE]
      expect(advice.why.length, key).toBeGreaterThan(20)
      expect(advice.fix.length, key).toBeGreaterThan(10)
    }
  })
})
