import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type SubmitEvent } from 'react'
import { ALERTS_KEY, alertsQuery, changeRule, type AlertRule } from '../../api/alerts'
import { ErrorAlert } from '../../components/alert'

/** The rules, each with its switch and thresholds (admins change them; viewers read them). */

const GROUPS: Record<string, string> = {
  messages: 'Messages',
  desk: 'Support desk',
  upkeep: 'Upkeep',
  security: 'Security',
  watch: 'Callback watch',
}

/** Words for each threshold's name. */
const LABELS: Record<string, string> = {
  windowMinutes: 'Window (minutes)',
  minOutbound: 'At least this many sent',
  minFailed: 'At least this many refused',
  minRate: 'Refused share at least (0–1)',
  baselineHours: 'Compared with the last (hours)',
  factor: 'Times the usual share',
  minutes: 'Minutes',
  minThreads: 'Customers at least',
  lookbackHours: 'Look back (hours)',
  failures: 'Failures in a row',
  recoveries: 'Good checks to resolve',
  messages: 'Messages behind',
  everyMinutes: 'Verify every (minutes)',
  holdHours: 'Hold for (hours)',
  days: 'Days before expiry',
}

export function RulesPanel({ rules, isAdmin }: { rules: AlertRule[]; isAdmin: boolean }) {
  const groups = [...new Set(rules.map((r) => r.group))]
  return (
    <div className="flex flex-col gap-5">
      {groups.map((g) => (
        <section key={g} aria-labelledby={`rules-${g}`}>
          <h2 id={`rules-${g}`} className="mb-2 text-lg font-semibold">
            {GROUPS[g] ?? g}
          </h2>
          <ul className="flex flex-col gap-2">
            {rules
              .filter((r) => r.group === g)
              .map((r) => (
                <RuleCard key={r.id} rule={r} isAdmin={isAdmin} />
              ))}
          </ul>
        </section>
      ))}
    </div>
  )
}

function RuleCard({ rule, isAdmin }: { rule: AlertRule; isAdmin: boolean }) {
  const client = useQueryClient()
  const [values, setValues] = useState<Record<string, string>>(() => {
    const out: Record<string, string> = { reminderMinutes: String(rule.reminderMinutes) }
    for (const [k, v] of Object.entries(rule.params)) out[k] = String(v)
    return out
  })
  const [said, setSaid] = useState<string | null>(null)
  const save = useMutation({
    mutationFn: (change: Parameters<typeof changeRule>[1]) => changeRule(rule.id, change),
    onSuccess: (r, change) => {
      setSaid(
        change.enabled !== undefined
          ? `${r.title} is ${r.enabled ? 'on' : 'off'}.`
          : change.urgent !== undefined
            ? `${r.title} is ${r.urgent ? 'urgent' : 'not urgent'}.`
            : `${r.title}: thresholds saved.`,
      )
      // The stored rule at once (the switch must not flick back while the page is asked again).
      client.setQueryData(alertsQuery().queryKey, (old) => (old ? { ...old, rules: old.rules.map((x) => (x.id === r.id ? r : x)) } : old))
      void client.invalidateQueries({ queryKey: ALERTS_KEY })
    },
  })
  // The switch shows what was asked while the server answers (then what it stored).
  const pending = save.isPending ? save.variables : undefined
  const enabled = pending?.enabled ?? rule.enabled
  const urgent = pending?.urgent ?? rule.urgent
  const submit = (e: SubmitEvent) => {
    e.preventDefault()
    const params = Object.fromEntries(Object.keys(rule.params).map((k) => [k, Number(values[k])]))
    save.mutate({ params, reminderMinutes: Number(values.reminderMinutes) })
  }
  const field = (k: string, label: string, step = 'any') => (
    <label key={k} className="flex flex-col gap-1 text-sm font-medium">
      {label}
      <input
        className="input w-32"
        type="number"
        inputMode="decimal"
        step={step}
        value={values[k] ?? ''}
        disabled={!isAdmin}
        onChange={(e) => {
          setValues((v) => ({ ...v, [k]: e.target.value }))
        }}
        required
      />
    </label>
  )
  return (
    <li className="rounded border border-slate-200 bg-white p-3">
      <form onSubmit={submit} aria-labelledby={`rule-${rule.id}`}>
        <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
          <h3 id={`rule-${rule.id}`} className="font-semibold">
            {rule.title}
          </h3>
          <label className="flex items-center gap-2 text-sm">
            <input
              type="checkbox"
              checked={enabled}
              disabled={!isAdmin || save.isPending}
              onChange={(e) => {
                save.mutate({ enabled: e.target.checked })
              }}
            />
            On<span className="sr-only"> ({rule.title})</span>
          </label>
          <label className="flex items-center gap-2 text-sm">
            <input
              type="checkbox"
              checked={urgent}
              disabled={!isAdmin || save.isPending}
              onChange={(e) => {
                save.mutate({ urgent: e.target.checked })
              }}
            />
            Urgent (ignores quiet hours)<span className="sr-only"> ({rule.title})</span>
          </label>
        </div>
        <p className="mt-1 text-sm text-slate-700">{rule.about}</p>
        <div className="mt-2 flex flex-wrap items-end gap-3">
          {Object.keys(rule.params).map((k) => field(k, LABELS[k] ?? k))}
          {field('reminderMinutes', 'Remind every (minutes)', '1')}
          {isAdmin ? (
            <button type="submit" className="btn" disabled={save.isPending}>
              Save<span className="sr-only"> {rule.title}</span>
            </button>
          ) : null}
        </div>
        <p role="status" className="mt-1 min-h-5 text-sm text-green-800">
          {said}
        </p>
        {rule.updatedBy ? (
          <p className="text-xs text-slate-600">
            Last changed by {rule.updatedBy} on {new Date(rule.updatedAt).toLocaleString()}
          </p>
        ) : null}
        {save.error ? <ErrorAlert error={save.error} doing={`saving ${rule.title}`} takeFocus /> : null}
      </form>
    </li>
  )
}
