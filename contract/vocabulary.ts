/**
 * One name for each thing a person reads, exports or changes, read by the access log (the action
 * each entry records), the access-log page (its filter and its words) and export file names
 * (`switchboard-<subject>-…`). An action is `<subject>.<verb>`; a file holds one subject, so an
 * export of search results is `search.export` in the log and `switchboard-search-…csv` on disk,
 * and the page says "Search results: exported". Adding a route that reads customer data means
 * adding its action here, or the server does not compile (RouteSpec.reads is an Action).
 */

export const SUBJECTS = {
  signin: 'Sign-in',
  signout: 'Sign-out',
  user: 'Team user',
  numbers: 'Owned numbers',
  history: "A number's history",
  thread: 'Conversation',
  message: 'One message',
  parties: "A number's conversations",
  search: 'Search results',
  stats: 'Charts',
  media: 'Message media',
  index: 'Message index',
  view: 'Saved view',
  'access-log': 'Access log',
  'needs-reply': 'Needs reply',
  'opt-outs': 'Opt-out ledger',
  'sent-after-opt-out': 'Sent after opt-out',
  customer: 'Customer',
  'quiet-hours': 'Quiet hours',
  segments: 'Segments',
  callbacks: 'Callbacks (messages at risk)',
  alerts: 'Alerts',
} as const
export type Subject = keyof typeof SUBJECTS

const VERBS = {
  view: 'viewed',
  prefetch: 'read ahead (not yet shown)',
  export: 'exported',
  'export.done': 'export finished',
  'export.cancel': 'export cancelled',
  locate: 'went to a date',
  ok: 'succeeded',
  fail: 'refused',
  add: 'added',
  change: 'changed',
  remove: 'removed',
  sync: 'sync asked for',
  forget: 'forgotten',
  create: 'created',
  rename: 'renamed',
  delete: 'deleted',
  counts: 'counts viewed',
  share: 'shared or made private',
  handled: 'marked handled',
  unhandled: 'mark handled undone',
  settings: 'settings changed',
  check: 'checked now',
  reveal: 'address revealed',
  rule: 'rule changed',
  channel: 'channel changed',
  ack: 'acknowledged',
  silence: 'silenced or unsilenced',
  test: 'test notice sent',
  witness: 'signed head sent to witnesses',
} as const
type Verb = keyof typeof VERBS

/** Every action the server records, as `[subject, verb]`; the name is `subject.verb` (sign-out has no verb). */
const ACTION_PARTS = [
  ['signin', 'ok'],
  ['signin', 'fail'],
  ['signout', null],
  ['user', 'add'],
  ['user', 'change'],
  ['user', 'remove'],
  ['history', 'view'],
  ['history', 'prefetch'],
  ['history', 'locate'],
  ['history', 'export'],
  ['history', 'export.done'],
  ['history', 'export.cancel'],
  ['thread', 'view'],
  ['message', 'view'],
  ['parties', 'view'],
  ['search', 'view'],
  ['search', 'export'],
  ['search', 'export.done'],
  ['search', 'export.cancel'],
  ['stats', 'view'],
  ['media', 'view'],
  ['index', 'sync'],
  ['index', 'forget'],
  ['view', 'create'],
  ['view', 'rename'],
  ['view', 'delete'],
  ['view', 'share'],
  ['view', 'counts'],
  ['access-log', 'view'],
  ['access-log', 'export'],
  ['access-log', 'export.done'],
  ['needs-reply', 'view'],
  ['needs-reply', 'export'],
  ['needs-reply', 'export.done'],
  ['needs-reply', 'export.cancel'],
  ['needs-reply', 'handled'],
  ['needs-reply', 'unhandled'],
  ['needs-reply', 'settings'],
  ['opt-outs', 'view'],
  ['opt-outs', 'export'],
  ['opt-outs', 'export.done'],
  ['opt-outs', 'export.cancel'],
  ['sent-after-opt-out', 'view'],
  ['sent-after-opt-out', 'export'],
  ['sent-after-opt-out', 'export.done'],
  ['sent-after-opt-out', 'export.cancel'],
  ['customer', 'view'],
  ['quiet-hours', 'view'],
  ['quiet-hours', 'export'],
  ['quiet-hours', 'export.done'],
  ['quiet-hours', 'export.cancel'],
  ['segments', 'view'],
  ['callbacks', 'view'],
  ['callbacks', 'check'],
  ['callbacks', 'reveal'],
  ['alerts', 'rule'],
  ['alerts', 'channel'],
  ['alerts', 'ack'],
  ['alerts', 'silence'],
  ['alerts', 'test'],
  ['alerts', 'witness'],
] as const satisfies ReadonlyArray<readonly [Subject, Verb | null]>

type Joined<P> = P extends readonly [infer S extends string, infer V] ? (V extends string ? `${S}.${V}` : S) : never
/** An access-log action of the contract's vocabulary. */
export type Action = Joined<(typeof ACTION_PARTS)[number]>

const joined = (s: string, v: string | null) => (v === null ? s : `${s}.${v}`)

/** Every action, in the order the access-log page offers them. */
export const ACTIONS: readonly Action[] = ACTION_PARTS.map(([s, v]) => joined(s, v) as Action)

/**
 * Names the log wrote before this vocabulary, and what they are now: entries keep the name they
 * were written with (the hash chain covers it), so the page words them and the filter finds them
 * under the new name.
 */
export const FORMER_NAMES: Readonly<Record<string, Action>> = {
  search: 'search.view',
  locate: 'history.locate',
  forget: 'index.forget',
  export: 'search.export',
  'export.done': 'search.export.done',
  'views.counts': 'view.counts',
  'desk.needs-reply': 'needs-reply.view',
  'desk.needs-reply.export': 'needs-reply.export',
  'desk.opt-outs': 'opt-outs.view',
  'desk.opt-outs.export': 'opt-outs.export',
  'desk.sent-after-opt-out': 'sent-after-opt-out.view',
  'desk.sent-after-opt-out.export': 'sent-after-opt-out.export',
  'desk.customer': 'customer.view',
  'desk.quiet-hours': 'quiet-hours.view',
  'desk.segments': 'segments.view',
  'desk.handled': 'needs-reply.handled',
  'desk.settings': 'needs-reply.settings',
}

export const isAction = (s: string): s is Action => (ACTIONS as readonly string[]).includes(s)

/** The action a stored name stands for now (itself, or what a former name became); null when unknown. */
export function currentAction(name: string): Action | null {
  return isAction(name) ? name : (FORMER_NAMES[name] ?? null)
}

/** The names an action filter matches in the log: the action and the former names that became it. */
export function namesOf(action: Action): string[] {
  return [action, ...Object.entries(FORMER_NAMES).flatMap(([old, now]) => (now === action ? [old] : []))]
}

/** `Search results: exported`: an action in words, from its subject and verb. Unknown names come back as they are. */
export function actionWords(name: string): string {
  const a = currentAction(name)
  if (a === null) return name
  const parts = ACTION_PARTS.find(([s, v]) => joined(s, v) === a)
  if (!parts) return name
  const [subject, verb] = parts
  return verb === null ? SUBJECTS[subject] : `${SUBJECTS[subject]}: ${VERBS[verb]}`
}

/** The subject of an export action (`search.export` → `search`): the word its file name starts with. */
export const subjectOf = (action: Action): Subject => action.split('.')[0] as Subject

/** `switchboard-<subject>`: how every export's file name begins. */
export const fileStem = (subject: Subject) => `switchboard-${subject}`
