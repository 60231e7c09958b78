import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { acknowledgeAlert, addSilence, ALERTS_KEY, endSilence, evaluateNow, type AlertItem, type AlertsPageData } from '../../api/alerts'
import { ErrorAlert } from '../../components/alert'
import { EmptyState } from '../../components/empty-state'
import { AlertCard, when } from './alert-parts'

/** What fires now, with Acknowledge and Silence for admins, and the silences in force. */
export function FiringPanel({ data, isAdmin }: { data: AlertsPageData; isAdmin: boolean }) {
  const client = useQueryClient()
  const [said, setSaid] = useState<string | null>(null)
  const done = (text: string) => {
    setSaid(text)
    void client.invalidateQueries({ queryKey: ALERTS_KEY })
  }
  const titles = new Map(data.rules.map((r) => [r.id, r.title]))
  const check = useMutation({
    mutationFn: evaluateNow,
    onSuccess: (d) => {
      done(`Rules checked: ${d.opened} new, ${d.resolved} resolved, ${d.notices} notice${d.notices === 1 ? '' : 's'} queued.`)
    },
  })
  const unsilence = useMutation({
    mutationFn: endSilence,
    onSuccess: () => {
      done('The silence is over.')
    },
  })
  return (
    <>
      <div className="flex flex-wrap items-center gap-3">
        {isAdmin ? (
          <button
            type="button"
            className="btn"
            disabled={check.isPending}
            onClick={() => {
              check.mutate()
            }}
          >
            {check.isPending ? 'Checking…' : 'Check the rules now'}
          </button>
        ) : null}
        <p role="status" className="min-h-5 text-sm text-green-800">
          {said}
        </p>
      </div>
      {check.error ? <ErrorAlert error={check.error} doing="checking the rules" takeFocus /> : null}
      <h2 className="mt-3 mb-1 text-lg font-semibold">Firing now</h2>
      {data.firing.length === 0 ? (
        <EmptyState title="Nothing is firing">Every enabled rule is quiet. Resolved alerts are under History.</EmptyState>
      ) : (
        <ul className="flex flex-col gap-2" aria-label="Firing alerts">
          {data.firing.map((a) => (
            <AlertCard key={a.id} alert={a} actions={isAdmin ? <FiringActions alert={a} onDone={done} /> : null} />
          ))}
        </ul>
      )}
      <h2 className="mt-5 mb-1 text-lg font-semibold">Silences</h2>
      {data.silences.length === 0 ? (
        <p className="text-sm text-slate-700">No silence is in force.</p>
      ) : (
        <ul className="flex flex-col gap-1 text-sm">
          {data.silences.map((s) => (
            <li key={s.id} className="flex flex-wrap items-center gap-2">
              <span>
                {[s.rule ? (titles.get(s.rule) ?? s.rule) : null, s.number].filter(Boolean).join(' on ')} silenced until {when(s.until)} by{' '}
                {s.createdBy}
              </span>
              {isAdmin ? (
                <button
                  type="button"
                  className="btn"
                  disabled={unsilence.isPending}
                  onClick={() => {
                    unsilence.mutate(s.id)
                  }}
                >
                  End silence<span className="sr-only"> of {s.rule ?? s.number}</span>
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {unsilence.error ? <ErrorAlert error={unsilence.error} doing="ending the silence" /> : null}
    </>
  )
}

const DURATIONS = [
  { hours: 1, label: '1 hour' },
  { hours: 4, label: '4 hours' },
  { hours: 24, label: '1 day' },
  { hours: 168, label: '1 week' },
] as const

function FiringActions({ alert, onDone }: { alert: AlertItem; onDone: (text: string) => void }) {
  const [hours, setHours] = useState<number>(4)
  const [scope, setScope] = useState<'rule' | 'number'>(alert.number ? 'number' : 'rule')
  const ack = useMutation({
    mutationFn: () => acknowledgeAlert(alert.id),
    onSuccess: () => {
      onDone(`${alert.title} acknowledged: no reminders until it resolves.`)
    },
  })
  const silence = useMutation({
    mutationFn: () =>
      addSilence({
        ...(scope === 'rule' ? { rule: alert.rule } : { number: alert.number }),
        until: new Date(Date.now() + hours * 3_600_000).toISOString(),
      }),
    onSuccess: () => {
      onDone(`Silenced ${scope === 'rule' ? alert.title : alert.number} for ${DURATIONS.find((d) => d.hours === hours)?.label}.`)
    },
  })
  const label = `${alert.title}${alert.number ? ` on ${alert.number}` : ''}`
  return (
    <>
      {alert.ackedAt ? null : (
        <button
          type="button"
          className="btn"
          disabled={ack.isPending}
          onClick={() => {
            ack.mutate()
          }}
        >
          Acknowledge<span className="sr-only"> {label}</span>
        </button>
      )}
      <span className="flex flex-wrap items-center gap-2">
        {alert.number ? (
          <select
            className="input"
            aria-label={`What to silence for ${label}`}
            value={scope}
            onChange={(e) => {
              setScope(e.target.value === 'rule' ? 'rule' : 'number')
            }}
          >
            <option value="number">this number</option>
            <option value="rule">this rule</option>
          </select>
        ) : null}
        <select
          className="input"
          aria-label={`How long to silence ${label}`}
          value={hours}
          onChange={(e) => {
            setHours(Number(e.target.value))
          }}
        >
          {DURATIONS.map((d) => (
            <option key={d.hours} value={d.hours}>
              {d.label}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="btn"
          disabled={silence.isPending}
          onClick={() => {
            silence.mutate()
          }}
        >
          Silence<span className="sr-only"> {label}</span>
        </button>
      </span>
      {ack.error ? <ErrorAlert error={ack.error} doing="acknowledging" takeFocus /> : null}
      {silence.error ? <ErrorAlert error={silence.error} doing="silencing" takeFocus /> : null}
    </>
  )
}
