import { formatCount } from '../../lib/count'
import type { AuditKey, Finding } from './audit'

/*
 * The audit's longer words: what each finding means for the account and how to fix it. They are
 * read only in the summary's closed "Findings by kind" disclosure, so they load with it
 * (./audit-details), not with the numbers page.
 */

/** Why each finding matters and how to fix it, in a sentence each: the audit is advice, not only a label. */
export const FINDING_ADVICE: Record<Finding, { why: string; fix: string }> = {
  missing: {
    why: 'Messages or delivery reports for these numbers go nowhere: nobody learns of a reply or a failed send.',
    fix: 'Set the callback URL in the messaging provider’s console to the endpoint your other numbers use.',
  },
  invalid_url: {
    why: 'The provider cannot call a URL it cannot parse, so every callback is lost (a formula here is also a spreadsheet risk).',
    fix: 'Replace it with a full https:// URL.',
  },
  not_https: {
    why: 'Customers’ messages travel in clear text, readable and changeable on the way.',
    fix: 'Use the same URL with https:// (the receiver needs a certificate).',
  },
  private_host: {
    why: 'A private or local address is not reachable from the provider; if it ever is, it reaches inside your network.',
    fix: 'Point it at a public https:// endpoint, or a relay you run for the purpose.',
  },
  metadata_host: {
    why: '169.254.169.254 is where cloud machines read their own credentials: a callback there is an attack, not a receiver.',
    fix: 'Remove it now, set the right endpoint, and ask who changed it (the provider’s audit log).',
  },
  other_domain: {
    why: 'Another company’s server receives your customers’ messages.',
    fix: 'If it is a vendor you use, note it; if not, set your own endpoint and check who changed it.',
  },
  same_as_webhook: {
    why: 'Delivery reports arrive at the endpoint that expects customer messages, which may drop or misread them.',
    fix: 'Use the delivery-report endpoint your other numbers use, unless that endpoint handles both on purpose.',
  },
  outlier: {
    why: 'This number sends to a different endpoint than most numbers: often a leftover test or an old server.',
    fix: 'If it is not deliberate, set it to the endpoint the other numbers use.',
  },
  listed_twice: {
    why: 'The account lists this number under more than one tid; its history may be split between them.',
    fix: 'Ask the provider which tid is current, and remove the other.',
  },
}

/** "12 numbers send delivery reports nowhere": the sentence an owner reads at a glance. */
export function findingSentence(key: AuditKey, n: number): string {
  const nums = `${formatCount(n)} number${n === 1 ? '' : 's'}`
  const verb = n === 1 ? 'sends' : 'send'
  const what = key.startsWith('dlr') ? 'delivery reports' : 'incoming messages'
  switch (key.split('.')[1] as Finding) {
    case 'missing':
      return `${nums} ${verb} ${what} nowhere`
    case 'invalid_url':
      return `${nums} ${verb} ${what} to an invalid URL`
    case 'not_https':
      return `${nums} ${verb} ${what} over plain HTTP`
    case 'private_host':
      return `${nums} ${verb} ${what} to a private host`
    case 'metadata_host':
      return `${nums} ${verb} ${what} to the cloud metadata address`
    case 'other_domain':
      return `${nums} ${verb} ${what} to another company’s domain`
    case 'same_as_webhook':
      return `${nums} ${verb} delivery reports to the webhook URL`
    case 'outlier':
      return `${nums} ${verb} ${what} somewhere other than most numbers`
    case 'listed_twice':
      return `${formatCount(n)} listing${n === 1 ? ' is' : 's are'} of a number the account lists under more than one tid`
  }
}
