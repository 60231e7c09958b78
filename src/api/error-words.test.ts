import { expect, test } from 'vitest'
import { ApiError, ERROR_WORDS, wordsFor } from './errors'

test("an error's words say whose failure it is, and when to try again when the answer said", () => {
  // The messaging service asked us to slow down (HTTP 429, or a 200 refusal that names a rate limit).
  const slow = wordsFor(
    new ApiError('timeout', 'The messaging service is busy and asked for fewer requests (HTTP 429).', 504, {
      upstreamStatus: 429,
      retryAfterMs: 30_000,
    }),
  )
  expect(slow).toEqual({
    title: 'The messaging service asked Switchboard to slow down',
    hint: 'It takes more requests in about 30 s: try again then.',
    retry: true,
  })
  expect(wordsFor(new ApiError('timeout', 'Rate limit exceeded', 504, { upstreamStatus: 200 })).title).toBe(
    'The messaging service asked Switchboard to slow down',
  )
  // Our own server did not answer: not the messaging service's fault.
  expect(wordsFor(new ApiError('unreachable', 'The Switchboard server could not be reached.', 0)).title).toBe(
    'The Switchboard server could not be reached',
  )
  // The index, and the export line, are Switchboard's own.
  expect(wordsFor(new ApiError('timeout', 'The message index took too long to answer', 503)).title).toBe(
    'The message index took too long to answer',
  )
  const line = wordsFor(new ApiError('timeout', '4 exports are running…', 429, { retryAfterMs: 120_000 }))
  expect(line).toMatchObject({ title: 'Too many exports are running or waiting', hint: 'Try again in about 2 min.' })
  // The service failing (HTTP 500) stays its kind's words, with the wait when it gave one.
  expect(wordsFor(new ApiError('unreachable', 'The messaging service is failing (HTTP 500).', 502, { upstreamStatus: 500 }))).toEqual(
    ERROR_WORDS.unreachable,
  )
  expect(wordsFor(new ApiError('unreachable', 'failing', 502, { upstreamStatus: 503, retryAfterMs: 5_000 })).hint).toBe(
    'It may be down or failing. Try again in about 5 s.',
  )
  // A service timeout with no status (no answer in time) is the service's.
  expect(wordsFor(new ApiError('timeout', 'No answer within 15 s', 504)).title).toBe(ERROR_WORDS.timeout.title)
})
