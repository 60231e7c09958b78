import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState, type SubmitEvent } from 'react'
import {
  addChannel,
  ALERTS_KEY,
  alertsQuery,
  changeChannel,
  removeChannel,
  sendTest,
  type AlertChannel,
  type AlertDelivery,
  type AlertsPageData,
  type ChannelKind,
} from '../../api/alerts'
import { ErrorAlert } from '../../components/alert'
import { CopyText } from '../../components/copy-text'
import { EmptyState } from '../../components/empty-state'
import { when } from './alert-parts'
import { WitnessPanel } from './witness-panel'

/**
 * Where notices go. A channel's secret never comes back from the server once saved (the page
 * says it is set); a webhook secret the server makes is shown once, when the channel is added.
 */

const KIND: Record<ChannelKind, string> = { webhook: 'Webhook (signed JSON)', slack: 'Slack incoming webhook', email: 'Email' }

export function ChannelsPanel({ data, isAdmin, maySendHead }: { data: AlertsPageData; isAdmin: boolean; maySendHead: boolean }) {
  const [said, setSaid] = useState<string | null>(null)
  const [secret, setSecret] = useState<string | null>(null)
  return (
    <>
      <p role="status" className="min-h-5 text-sm text-green-800">
        {said}
      </p>
      {secret ? (
        <div className="my-2 rounded border border-amber-300 bg-amber-50 p-3 text-sm" role="note">
          <p className="font-semibold">The new webhook’s signing secret, shown this once</p>
          <p>Give it to the receiver to verify signatures (Standard Webhooks). Switchboard will not show it again.</p>
          <CopyText value={secret} label="the signing secret" />
        </div>
      ) : null}
      <h2 className="mb-1 text-lg font-semibold">Channels</h2>
      {data.channels.length === 0 ? (
        <EmptyState title="No channel yet">
          Notices have nowhere to go.{' '}
          {isAdmin ? 'Add a webhook, a Slack incoming webhook or an email address below.' : 'An admin adds one.'}
        </EmptyState>
      ) : (
        <ul className="flex flex-col gap-2" aria-label="Channels">
          {data.channels.map((c) => (
            <ChannelCard
              key={c.id}
              channel={c}
              isAdmin={isAdmin}
              deliveries={data.deliveries.filter((d) => d.channel === c.id)}
              onSaid={setSaid}
            />
          ))}
        </ul>
      )}
      {isAdmin ? (
        <AddChannelForm
          emailReady={data.emailReady}
          onAdded={(c, once) => {
            setSaid(`Added ${c.name}.`)
            setSecret(once ?? null)
          }}
        />
      ) : null}
      <WitnessPanel data={data} maySend={maySendHead} />
    </>
  )
}

function ChannelCard({
  channel: c,
  isAdmin,
  deliveries,
  onSaid,
}: {
  channel: AlertChannel
  isAdmin: boolean
  deliveries: AlertDelivery[]
  onSaid: (s: string) => void
}) {
  const client = useQueryClient()
  const refresh = () => void client.invalidateQueries({ queryKey: ALERTS_KEY })
  const test = useMutation({ mutationFn: () => sendTest(c.id), onSettled: refresh })
  const change = useMutation({
    mutationFn: (input: Parameters<typeof changeChannel>[1]) => changeChannel(c.id, input),
    onSuccess: (saved) => {
      onSaid(`${saved.name} saved.`)
      client.setQueryData(alertsQuery().queryKey, (old) =>
        old ? { ...old, channels: old.channels.map((x) => (x.id === saved.id ? saved : x)) } : old,
      )
      refresh()
    },
  })
  const remove = useMutation({
    mutationFn: () => removeChannel(c.id),
    onSuccess: () => {
      onSaid(`Removed ${c.name}.`)
      refresh()
    },
  })
  const fromEnv = c.source === 'env'
  // The switches show what was asked while the server answers (then what it stored).
  const asked = change.isPending ? change.variables : undefined
  return (
    <li className="rounded border border-slate-200 bg-white p-3">
      <article aria-labelledby={`channel-${c.id}`}>
        <h3 id={`channel-${c.id}`} className="font-semibold">
          {c.name}
        </h3>
        <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-sm">
          <dt className="text-slate-600">Kind</dt>
          <dd>{KIND[c.kind]}</dd>
          <dt className="text-slate-600">Goes to</dt>
          <dd className="break-all">{c.target}</dd>
          {c.kind !== 'email' ? (
            <>
              <dt className="text-slate-600">Secret</dt>
              <dd>{c.secret === 'set' ? 'set (never shown again)' : 'none'}</dd>
            </>
          ) : null}
          <dt className="text-slate-600">Set by</dt>
          <dd>{fromEnv ? "the server's configuration" : 'an admin, here'}</dd>
          <dt className="text-slate-600">Witness</dt>
          <dd>
            {c.witness ? 'yes: gets the access log’s signed head' : 'no'}
            {fromEnv && c.witness ? ' (ALERT_WITNESS)' : ''}
          </dd>
          <dt className="text-slate-600">Quiet hours</dt>
          <dd>{c.quietStart === null ? 'none' : `${c.quietStart}:00–${c.quietEnd}:00 ${c.quietZone} (urgent rules still go)`}</dd>
        </dl>
        <div className="mt-2 flex flex-wrap items-center gap-3 text-sm">
          {isAdmin ? (
            <button
              type="button"
              className="btn"
              disabled={test.isPending}
              onClick={() => {
                test.mutate()
              }}
            >
              {test.isPending ? 'Sending…' : 'Send a test'}
              <span className="sr-only"> to {c.name}</span>
            </button>
          ) : null}
          {isAdmin && !fromEnv ? (
            <>
              <label className="flex items-center gap-2">
                <input
                  type="checkbox"
                  checked={asked?.enabled ?? c.enabled}
                  disabled={change.isPending}
                  onChange={(e) => {
                    change.mutate({ enabled: e.target.checked })
                  }}
                />
                On<span className="sr-only"> ({c.name})</span>
              </label>
              <label className="flex items-center gap-2">
                <input
                  type="checkbox"
                  checked={asked?.details ?? c.details}
                  disabled={change.isPending}
                  onChange={(e) => {
                    change.mutate({ details: e.target.checked })
                  }}
                />
                Customer phones in notices<span className="sr-only"> ({c.name})</span>
              </label>
              <label className="flex items-center gap-2">
                <input
                  type="checkbox"
                  checked={asked?.witness ?? c.witness}
                  disabled={change.isPending}
                  onChange={(e) => {
                    change.mutate({ witness: e.target.checked })
                  }}
                />
                Witness of the access log<span className="sr-only"> ({c.name})</span>
              </label>
              <button
                type="button"
                className="btn"
                disabled={remove.isPending}
                onClick={() => {
                  remove.mutate()
                }}
              >
                Remove<span className="sr-only"> {c.name}</span>
              </button>
            </>
          ) : null}
        </div>
        <p role="status" className="mt-1 min-h-5 text-sm">
          {test.data
            ? test.data.ok
              ? `Test delivered (${test.data.status ?? 'ok'}, ${test.data.ms} ms).`
              : `Test not delivered: ${test.data.error ?? 'no answer'}`
            : null}
        </p>
        {test.error ? <ErrorAlert error={test.error} doing="sending a test" /> : null}
        {change.error ? <ErrorAlert error={change.error} doing="saving the channel" takeFocus /> : null}
        {remove.error ? <ErrorAlert error={remove.error} doing="removing the channel" takeFocus /> : null}
        <DeliveryLog deliveries={deliveries} name={c.name} />
      </article>
    </li>
  )
}

const STATE: Record<AlertDelivery['state'], string> = { pending: 'waiting to retry', sent: 'delivered', dead: 'gave up' }

function DeliveryLog({ deliveries, name }: { deliveries: AlertDelivery[]; name: string }) {
  return (
    <details className="mt-2 text-sm">
      <summary className="cursor-pointer">
        Delivery log ({deliveries.length})<span className="sr-only"> of {name}</span>
      </summary>
      {deliveries.length === 0 ? (
        <p className="mt-1 text-slate-700">Nothing sent yet.</p>
      ) : (
        <ul className="mt-1 flex flex-col gap-1">
          {deliveries.map((d) => (
            <li key={d.id} className="border-t border-slate-100 pt-1">
              <span className="font-medium">{d.title}</span> ({d.kind}), {when(d.createdAt)}: <strong>{STATE[d.state]}</strong>
              {d.state === 'pending' && d.attempts > 0 ? `, next try ${when(d.runAt)}` : ''}
              <ul className="ml-4 text-xs text-slate-700">
                {d.log.map((l, i) => (
                  <li key={i}>
                    {when(l.at)}: {l.status === null ? 'no answer' : `status ${l.status}`}, {l.ms} ms{l.error ? ` (${l.error})` : ''}
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      )}
    </details>
  )
}

function AddChannelForm({ emailReady, onAdded }: { emailReady: boolean; onAdded: (c: AlertChannel, secretOnce?: string) => void }) {
  const client = useQueryClient()
  const [kind, setKind] = useState<ChannelKind>('webhook')
  const [name, setName] = useState('')
  const [target, setTarget] = useState('')
  const [secret, setSecret] = useState('')
  const [quiet, setQuiet] = useState({ start: '', end: '' })
  const add = useMutation({
    mutationFn: addChannel,
    onSuccess: (r) => {
      setName('')
      setTarget('')
      setSecret('')
      onAdded(r.channel, r.secretOnce)
      void client.invalidateQueries({ queryKey: ALERTS_KEY })
    },
  })
  const submit = (e: SubmitEvent) => {
    e.preventDefault()
    add.mutate({
      kind,
      name,
      target,
      ...(kind === 'webhook' && secret ? { secret } : {}),
      ...(quiet.start !== '' && quiet.end !== ''
        ? { quietStart: Number(quiet.start), quietEnd: Number(quiet.end), quietZone: Intl.DateTimeFormat().resolvedOptions().timeZone }
        : {}),
    })
  }
  return (
    <form onSubmit={submit} aria-label="Add a channel" className="mt-4 flex flex-wrap items-end gap-3 rounded border border-slate-200 p-3">
      <h3 className="w-full font-semibold">Add a channel</h3>
      <label className="flex flex-col gap-1 text-sm font-medium">
        Kind
        <select
          className="input"
          value={kind}
          onChange={(e) => {
            setKind(e.target.value as ChannelKind)
          }}
        >
          <option value="webhook">Webhook</option>
          <option value="slack">Slack</option>
          <option value="email" disabled={!emailReady}>
            Email{emailReady ? '' : ' (needs SMTP_URL)'}
          </option>
        </select>
      </label>
      <label className="flex flex-col gap-1 text-sm font-medium">
        Name
        <input
          className="input"
          value={name}
          onChange={(e) => {
            setName(e.target.value)
          }}
          required
          maxLength={80}
        />
      </label>
      <label className="flex min-w-0 grow flex-col gap-1 text-sm font-medium">
        {kind === 'email' ? 'Email addresses (comma-separated)' : 'URL'}
        <input
          className="input"
          type={kind === 'email' ? 'text' : 'url'}
          value={target}
          onChange={(e) => {
            setTarget(e.target.value)
          }}
          required
          autoComplete="off"
        />
      </label>
      {kind === 'webhook' ? (
        <label className="flex flex-col gap-1 text-sm font-medium">
          Signing secret (whsec_…; empty: one is made)
          <input
            className="input"
            type="password"
            value={secret}
            onChange={(e) => {
              setSecret(e.target.value)
            }}
            autoComplete="off"
          />
        </label>
      ) : null}
      <fieldset className="flex flex-wrap items-end gap-2">
        <legend className="text-sm font-medium">Quiet hours (your time zone; optional)</legend>
        <label className="flex flex-col gap-1 text-sm">
          From hour
          <input
            className="input w-20"
            type="number"
            min={0}
            max={23}
            value={quiet.start}
            onChange={(e) => {
              setQuiet((q) => ({ ...q, start: e.target.value }))
            }}
          />
        </label>
        <label className="flex flex-col gap-1 text-sm">
          To hour
          <input
            className="input w-20"
            type="number"
            min={0}
            max={23}
            value={quiet.end}
            onChange={(e) => {
              setQuiet((q) => ({ ...q, end: e.target.value }))
            }}
          />
        </label>
      </fieldset>
      <button type="submit" className="btn-primary" disabled={add.isPending}>
        {add.isPending ? 'Adding…' : 'Add channel'}
      </button>
      {add.error ? (
        <div className="w-full">
          <ErrorAlert error={add.error} doing="adding the channel" takeFocus />
        </div>
      ) : null}
    </form>
  )
}
