/**
 * Who may do what: the one table of roles, and the one permission map the server's route table,
 * the database's check, the users CLI and the app's navigation all read. A route declares the
 * access level it needs; the app hides what a role cannot use and says who can, instead of
 * guessing from a role name.
 *
 * Adding a role is a row in ROLES (in rank order: each role may do all the roles before it may),
 * the levels in PERMISSIONS it opens, and a migration that rewrites the users table's CHECK
 * (proxy/access/roles-check.test.ts fails until the database lists exactly these roles).
 */

/**
 * The roles, least to most, each with its plural for "who can" ("… is for agents and admins").
 * - viewer: reads everything a signed-in person reads, and works the desk (marks threads handled,
 *   exports the desk's reports and the rows on screen).
 * - agent: a viewer who may also export whole histories and search results as files.
 * - admin: an agent who may also forget messages, manage users, read the access log, and change
 *   the desk's settings, the watch and alerts.
 */
const ROLE_TABLE = {
  viewer: { plural: 'viewers' },
  agent: { plural: 'agents' },
  admin: { plural: 'admins' },
} as const

export type Role = keyof typeof ROLE_TABLE
export const ROLES = Object.keys(ROLE_TABLE) as [Role, ...Role[]]

/** The role with the fewest rights: what a person is when nothing says more (header sign-in). */
export const LEAST_ROLE: Role = ROLES[0]
/** The role with every right: the local admin (ACCESS=local) is this. */
export const MOST_ROLE: Role = ROLES.at(-1) ?? LEAST_ROLE

/** Whether a value is one of the roles (for the edges: a request's body, the CLI, a database row). */
export const isRole = (v: unknown): v is Role => typeof v === 'string' && Object.hasOwn(ROLE_TABLE, v)

/** A role with its article ("an agent"), for "you are signed in as …". */
export const aRole = (r: Role): string => `${/^[aeiou]/.test(r) ? 'an' : 'a'} ${r}`

/** "viewer, agent or admin": the roles in words, for messages and help. */
export const ROLE_WORDS = `${ROLES.slice(0, -1).join(', ')} or ${MOST_ROLE}`

/**
 * A route's access level: `public` answers anyone (sign-in, "who am I", the server's meta),
 * `signed-in` any user with a session (or the local admin with ACCESS=local), and a role's name
 * that role and every role above it (the least role's level is the same as `signed-in`).
 */
export type AccessLevel = 'public' | 'signed-in' | Role
export const ACCESS_LEVELS: readonly AccessLevel[] = ['public', 'signed-in', ...ROLES]

/**
 * The things the app offers that not every role may do, each with the level its routes need.
 * The agent's line: what works the team's messages (exports of whole histories) is an agent's;
 * what changes who may see what, or erases what happened (users, the access log, forgetting), stays an admin's.
 */
export const PERMISSIONS = {
  /** Read histories, search, threads, single messages, charts (every read is logged). */
  readMessages: 'signed-in',
  /** Start or refresh indexing of a number (or all). */
  syncIndex: 'signed-in',
  /**
   * Mark a desk thread handled, and undo it. Signed-in, not agent: viewers have always worked the
   * desk, and taking it from them would change what every team's viewers can do today.
   */
  markHandled: 'signed-in',
  /** Export the whole index or a whole search result as a file (the rows on screen are anyone's). */
  exportIndex: 'agent',
  /** Delete indexed messages from this server's disk: it erases what customers' histories held. */
  forgetMessages: 'admin',
  /** Add, change and remove users: who may do what is an admin's. */
  manageUsers: 'admin',
  /** Read and export the access log, and verify its chain: it shows what each colleague read. */
  readAccessLog: 'admin',
  /** Send the access log's signed head to the witness channels now: a notice to outside parties, as other alert changes are an admin's. */
  sendLogWitness: 'admin',
} as const satisfies Record<string, AccessLevel>

export type Permission = keyof typeof PERMISSIONS

const rank = (r: Role): number => ROLES.indexOf(r)

/** Whether a role (or nobody, `null`) meets an access level. */
export function allows(role: Role | null, level: AccessLevel): boolean {
  if (level === 'public') return true
  if (role === null) return false
  return level === 'signed-in' || rank(role) >= rank(level)
}

/** Whether a role may use a permission; `null` (not signed in, or not known yet) may use none. */
export const can = (role: Role | null, permission: Permission): boolean => allows(role, PERMISSIONS[permission])

/** "agents and admins": the plurals of a role and every role above it. */
function atOrAbove(r: Role): string {
  const names = ROLES.slice(rank(r)).map((x) => ROLE_TABLE[x].plural)
  const last = names.pop() ?? ''
  return names.length === 0 ? last : `${names.join(', ')} and ${last}`
}

/** Words for "who can", shown where a control is missing for this role. */
export const WHO_CAN: Record<AccessLevel, string> = {
  public: 'anyone',
  'signed-in': 'everyone signed in',
  ...(Object.fromEntries(ROLES.map((r) => [r, r === LEAST_ROLE ? 'everyone signed in' : atOrAbove(r)])) as Record<Role, string>),
}

/** Who can use a permission, in words ("agents and admins"). */
export const whoCan = (permission: Permission): string => WHO_CAN[PERMISSIONS[permission]]

/**
 * Sent (value `1`) on a request the app makes while its person has not pressed a key, clicked or
 * touched lately: the server checks the session but does not count the request as use, so a page
 * left open (its polls) does not hold off the idle sign-out.
 */
export const IDLE_HEADER = 'x-switchboard-idle'
