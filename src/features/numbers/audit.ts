import type { OwnedNumber } from '../../api/numbers'
import { isPrivateHost } from '../../lib/url-safety'

/**
 * Webhook/dlr audit. Each callback URL is checked on its own (missing, unparsable, plain
 * http, private-network host) and against the account: a dlr equal to the webhook, a URL
 * that differs from the one most numbers use when one clearly dominates, and a number the
 * listing carries more than once under different tids.
 */

export type Finding =
  | 'missing'
  | 'invalid_url'
  | 'not_https'
  | 'private_host'
  | 'metadata_host'
  | 'other_domain'
  | 'same_as_webhook'
  | 'outlier'
  | 'listed_twice'
export type Target = 'webhook' | 'dlr' | 'number'
export type AuditKey = `${Target}.${Finding}`

export const FINDING_LABEL: Record<Finding, string> = {
  missing: 'Missing',
  invalid_url: 'Invalid URL',
  not_https: 'Not HTTPS',
  private_host: 'Private host',
  metadata_host: 'Cloud metadata address',
  other_domain: 'Another domain',
  same_as_webhook: 'Same as webhook',
  outlier: 'Outlier',
  listed_twice: 'Listed twice',
}

export const TARGET_LABEL: Record<Target, string> = { webhook: 'webhook', dlr: 'dlr', number: 'number' }

/**
 * How much a finding matters, in words: a "problem" loses callbacks or sends them where they
 * should not go (nowhere, an unparsable URL, plain HTTP, a private host); "worth a look" may be
 * deliberate (one number pointed elsewhere, reports sharing the webhook URL). A number listed
 * twice still sends and receives; which of its tids holds its history is what needs a look.
 */
export type Severity = 'problem' | 'look'

export const SEVERITY: Record<Finding, Severity> = {
  missing: 'problem',
  invalid_url: 'problem',
  not_https: 'problem',
  private_host: 'problem',
  // The address every cloud machine's credentials are read from (AWS IMDS, GCP, Azure): a callback
  // there is server-side request forgery's classic target (OWASP SSRF), never a real receiver.
  metadata_host: 'problem',
  // Another company's domain receives the account's customers' messages: a problem until someone
  // says it is theirs (a vendor), unlike an outlier on the account's own domain.
  other_domain: 'problem',
  same_as_webhook: 'look',
  outlier: 'look',
  listed_twice: 'look',
}

export const SEVERITY_LABEL: Record<Severity, string> = { problem: 'Problem', look: 'Worth a look' }

export const findingOf = (key: AuditKey): Finding => key.split('.')[1] as Finding

export function severityOf(key: AuditKey): Severity {
  return SEVERITY[key.split('.')[1] as Finding]
}

/** One audit filter: a finding, or a whole class of numbers. */
export type AuditFilter = AuditKey | AuditClass

export const CLASS_FILTERS = ['problem', 'look', 'none'] as const
export type AuditClass = (typeof CLASS_FILTERS)[number]

export const CLASS_FILTER_LABEL: Record<(typeof CLASS_FILTERS)[number], string> = {
  problem: 'Any problem',
  look: 'Worth a look',
  none: 'No findings',
}

export function isAuditFilter(v: string | null): v is AuditFilter {
  return v !== null && ((CLASS_FILTERS as readonly string[]).includes(v) || isAuditKey(v))
}

export function auditFilterLabel(f: AuditFilter): string {
  return f === 'problem' || f === 'look' || f === 'none' ? CLASS_FILTER_LABEL[f] : auditLabel(f)
}

/** Whether a row's findings pass the filter. */
export function matchesAudit(findings: readonly AuditKey[], f: AuditFilter): boolean {
  if (f === 'none') return findings.length === 0
  if (f === 'problem' || f === 'look') return findings.some((k) => severityOf(k) === f)
  return findings.includes(f)
}

/**
 * The chips pressed, as the URL holds them: `severity=problem,look` for classes and
 * `audit=dlr.missing,webhook.outlier` for findings. A row passes when it matches any of them
 * (pressing a second chip widens the list, as a faceted filter does). Links from before the
 * chips were multi-select carried one class in `audit=` (`audit=problem`): still read.
 */
export function parseAuditSelection(severity: string | null, audit: string | null): AuditFilter[] {
  const out: AuditFilter[] = []
  for (const v of [...(severity ?? '').split(','), ...(audit ?? '').split(',')]) {
    const t = v.trim()
    if (isAuditFilter(t) && !out.includes(t)) out.push(t)
  }
  return out
}

/** The URL parameters of a selection (null: leave the parameter out). */
export function auditSelectionParams(selection: readonly AuditFilter[]): { severity: string | null; audit: string | null } {
  const classes = CLASS_FILTERS.filter((c) => selection.includes(c))
  const keys = AUDIT_KEYS.filter((k) => selection.includes(k))
  return { severity: classes.join(',') || null, audit: keys.join(',') || null }
}

/** The selection with one chip pressed or released. */
export function toggleAudit(selection: readonly AuditFilter[], f: AuditFilter): AuditFilter[] {
  return selection.includes(f) ? selection.filter((x) => x !== f) : [...selection, f]
}

/** Whether a row's findings pass any of the selected filters (nothing selected: every row). */
export function matchesAnyAudit(findings: readonly AuditKey[], selection: readonly AuditFilter[]): boolean {
  return selection.length === 0 || selection.some((f) => matchesAudit(findings, f))
}

/** "Any problem or No findings": the selection in words. */
export function auditSelectionLabel(selection: readonly AuditFilter[]): string {
  const words = selection.map(auditFilterLabel)
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`
}

export const AUDIT_KEYS: AuditKey[] = [
  ...(['webhook', 'dlr'] as const).flatMap((t) =>
    (['missing', 'invalid_url', 'not_https', 'private_host', 'metadata_host', 'other_domain', 'same_as_webhook', 'outlier'] as const)
      .filter((f) => !(t === 'webhook' && f === 'same_as_webhook'))
      .map((f) => `${t}.${f}` as const),
  ),
  'number.listed_twice',
]

export function isAuditKey(v: string | null): v is AuditKey {
  return v !== null && (AUDIT_KEYS as string[]).includes(v)
}

export function auditLabel(key: AuditKey): string {
  const [t, f] = key.split('.') as [Target, Finding]
  return `${TARGET_LABEL[t]}: ${FINDING_LABEL[f]}`
}

/** "Listed twice, with tids A and B": the finding with the tids that name the number. */
export function listedTwiceText(tids: readonly string[]): string {
  const times = tids.length === 2 ? 'twice' : `${tids.length} times`
  return `Listed ${times}, with tids ${joinAnd(tids)}`
}

/** "A, B and C". */
export const joinAnd = (xs: readonly string[]) =>
  xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`

const urlCache = new Map<string, Finding[]>()

/** An account has a handful of distinct callback URLs across thousands of numbers: check each once. */
export function checkUrlCached(value: string | null): Finding[] {
  const key = value ?? ''
  let hit = urlCache.get(key)
  if (!hit) {
    if (urlCache.size > 5000) urlCache.clear()
    hit = checkUrl(value)
    urlCache.set(key, hit)
  }
  return hit
}

export function checkUrl(value: string | null): Finding[] {
  if (value === null || value.trim() === '') return ['missing']
  let url: URL
  try {
    url = new URL(value.trim())
  } catch {
    return ['invalid_url']
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !url.hostname) return ['invalid_url']
  const out: Finding[] = []
  if (url.protocol !== 'https:') out.push('not_https')
  if (isPrivateHost(url.hostname)) out.push('private_host')
  if (METADATA_HOSTS.has(url.hostname.toLowerCase())) out.push('metadata_host')
  return out
}

/** Cloud instance-metadata endpoints (AWS, GCP, Azure, Alibaba; AWS's IPv6 one). */
const METADATA_HOSTS = new Set(['169.254.169.254', 'metadata.google.internal', '100.100.100.200', '[fd00:ec2::254]'])

/** A host's last two labels ("hooks.example.com" → "example.com"): a rough registrable domain, enough to tell companies apart. */
export function siteOf(url: string | null): string | null {
  try {
    const host = new URL((url ?? '').trim()).hostname.toLowerCase()
    if (!host || /^[\d.]+$/.test(host) || host.startsWith('[')) return null
    return host.split('.').slice(-2).join('.')
  } catch {
    return null
  }
}

/** The URL most numbers use, if it clearly dominates: over half of those set, and at least twice the runner-up. */
export function dominantUrl(values: ReadonlyArray<string | null>): string | null {
  const counts = new Map<string, number>()
  let set = 0
  for (const v of values) {
    if (!v || !v.trim()) continue
    set += 1
    counts.set(v.trim(), (counts.get(v.trim()) ?? 0) + 1)
  }
  const sorted = [...counts.entries()].sort((a, b) => b[1] - a[1])
  const [first, second] = sorted
  if (!first || set < 3) return null
  if (first[1] * 2 <= set) return null
  if (second && first[1] < second[1] * 2) return null
  return first[0]
}

export interface AuditResult {
  /** Each number's findings, by row id (empty: none). */
  findingsById: Map<string, AuditKey[]>
  counts: Map<AuditKey, number>
  /** Numbers with at least one problem, at least one finding worth a look, and none at all. */
  classes: Record<(typeof CLASS_FILTERS)[number], number>
  /** Numbers counted under both "Any problem" and "Worth a look": why the three chips add up to more than the numbers. */
  problemAndLook: number
  endpoints: Record<UrlTarget, Array<{ url: string; count: number }>>
  dominant: Record<UrlTarget, string | null>
  /** The numbers listed more than once (their digits, without a leading +), each with its tids in listing order. */
  tidsByNumber: Map<string, string[]>
}

export type UrlTarget = Exclude<Target, 'number'>

/** The listing may write a number with a leading + or without: the same number either way. */
export const numberDigits = (n: string) => (n.startsWith('+') ? n.slice(1) : n)

function endpointCounts(values: ReadonlyArray<string | null>) {
  const m = new Map<string, number>()
  for (const v of values) {
    const key = v && v.trim() ? v.trim() : ''
    m.set(key, (m.get(key) ?? 0) + 1)
  }
  return [...m.entries()].map(([url, count]) => ({ url, count })).sort((a, b) => b.count - a.count || a.url.localeCompare(b.url))
}

export function auditNumbers(numbers: readonly OwnedNumber[], idOf: (n: OwnedNumber) => string): AuditResult {
  const dominant = { webhook: dominantUrl(numbers.map((n) => n.webhook)), dlr: dominantUrl(numbers.map((n) => n.dlr)) }
  const findingsById = new Map<string, AuditKey[]>()
  const counts = new Map<AuditKey, number>()
  const classes = { problem: 0, look: 0, none: 0 }
  let problemAndLook = 0
  const tidsByNumber = new Map<string, string[]>()
  for (const n of numbers) {
    const d = numberDigits(n.number)
    const tids = tidsByNumber.get(d)
    if (tids) {
      if (!tids.includes(n.tid)) tids.push(n.tid)
    } else tidsByNumber.set(d, [n.tid])
  }
  for (const [d, tids] of tidsByNumber) if (tids.length < 2) tidsByNumber.delete(d)
  for (const n of numbers) {
    const findings: AuditKey[] = []
    for (const target of ['webhook', 'dlr'] as const) {
      const value = n[target]
      const own = checkUrlCached(value)
      for (const f of own) findings.push(`${target}.${f}`)
      const trimmed = value?.trim() ?? ''
      if (target === 'dlr' && trimmed && trimmed === (n.webhook?.trim() ?? '')) findings.push('dlr.same_as_webhook')
      if (!own.includes('missing') && !own.includes('invalid_url') && dominant[target] && trimmed !== dominant[target]) {
        // On another company's domain than the account's usual endpoint: its own finding, not only an outlier.
        const site = siteOf(trimmed)
        const usual = siteOf(dominant[target])
        if (site && usual && site !== usual && !own.includes('private_host')) findings.push(`${target}.other_domain`)
        findings.push(`${target}.outlier`)
      }
    }
    if (tidsByNumber.has(numberDigits(n.number))) findings.push('number.listed_twice')
    for (const k of findings) counts.set(k, (counts.get(k) ?? 0) + 1)
    if (findings.length === 0) classes.none += 1
    const problem = findings.some((k) => severityOf(k) === 'problem')
    const look = findings.some((k) => severityOf(k) === 'look')
    if (problem) classes.problem += 1
    if (look) classes.look += 1
    if (problem && look) problemAndLook += 1
    findingsById.set(idOf(n), findings)
  }
  return {
    findingsById,
    counts,
    classes,
    problemAndLook,
    endpoints: { webhook: endpointCounts(numbers.map((n) => n.webhook)), dlr: endpointCounts(numbers.map((n) => n.dlr)) },
    dominant,
    tidsByNumber,
  }
}
