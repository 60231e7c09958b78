/**
 * How the upstream speaks. `reference` is the interface document and the field notes' published
 * example. `plain` is a second upstream, written from the same documents by someone else, which
 * answers the same data in the other forms the field notes say to expect ("What is not known"):
 * refusals as HTTP 4xx with their own words and no `success` field, authentication refused with
 * an HTML page, the count key without its trailing space, `system_id` as a string, a bare
 * status code, `null` where the reference sends "". The e2e journeys run against both, so no
 * behaviour of the app can rest on the simulator's own words or shapes.
 */
export type Dialect = 'reference' | 'plain'
export const DIALECTS: readonly Dialect[] = ['reference', 'plain']

export interface Refusal {
  status: number
  body: string
  type?: string
}

/** A refusal of a request (a missing parameter, an unknown number, a bad range) in the dialect's own words. */
export function refusal(dialect: Dialect, message: string, why: 'parameter' | 'number' | 'range'): Refusal {
  if (dialect === 'reference') return { status: 200, body: JSON.stringify({ success: '0', error: true, message }) }
  const words = {
    parameter: 'Bad request: a required field is missing or malformed',
    number: 'DID not found',
    range: 'Range not satisfiable',
  }
  return { status: why === 'number' ? 404 : 400, body: JSON.stringify({ status: 'error', error: words[why] }) }
}

export function authRefusal(dialect: Dialect): Refusal {
  if (dialect === 'reference')
    return {
      status: 401,
      body: JSON.stringify({ success: '0', error: true, message: 'Authentication failed: unknown sys_id or auth_token' }),
    }
  return { status: 403, body: '<!doctype html><html><body><h1>403 Forbidden</h1></body></html>', type: 'text/html' }
}

interface HistoryAnswer {
  'message_count_requested ': number
  messages: ReadonlyArray<{ system_id: number | string; status: string; mms_url: string }>
}

/** A history answer (built in the reference form) in the dialect's form. */
export function historyIn(dialect: Dialect, answer: HistoryAnswer): object {
  if (dialect === 'reference') return answer
  const { 'message_count_requested ': count, ...rest } = answer
  return {
    ...rest,
    message_count_requested: count,
    messages: answer.messages.map((m) => ({
      ...m,
      system_id: String(m.system_id),
      status: /^\d{3}\b/.exec(m.status)?.[0] ?? m.status,
      mms_url: m.mms_url === '' ? null : m.mms_url,
    })),
  }
}
