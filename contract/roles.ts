/**
 * Who may do what: the one permission map the server's route table and the app's navigation
 * both read. A route declares the access level it needs; the app hides what a role cannot use
 * and says who can, instead of guessing from a role name.
 */

export const ROLES = ['viewer', 'admin'] as const
export type Role = (typeof ROLES)[number]

/**
 * A route's access level: `public` answers anyone (sign-in, "who am I", the server's meta),
 * `signed-in` any user with a session (or the local admin with ACCESS=local), `admin` only admins.
 */
export const ACCESS_LEVELS = ['public', 'signed-in', 'admin'] as const
export type AccessLevel = (typeof ACCESS_LEVELS)[number]

/** The things the app offers that not every role may do, each with the level its routes need. */
export const PERMISSIONS = {
  /** Read histories, search, threads, single messages, charts (every read is logged). */
  readMessages: 'signed-in',
  /** Start or refresh indexing of a number (or all). */
  syncIndex: 'signed-in',
  /** Export the whole index or a whole search result as a file (the rows on screen are anyone's). */
  exportIndex: 'admin',
  /** Delete indexed messages from this server's disk. */
  forgetMessages: 'admin',
  /** Add, change and remove users. */
  manageUsers: 'admin',
  /** Read and export the access log, and verify its chain. */
  readAccessLog: 'admin',
} as const satisfies Record<string, AccessLevel>

export type Permission = keyof typeof PERMISSIONS

/** Whether a role (or nobody, `null`) meets an access level. */
export function allows(role: Role | null, level: AccessLevel): boolean {
  if (level === 'public') return true
  if (role === null) return false
  return level === 'signed-in' || role === 'admin'
}

/** Whether a role may use a permission; `null` (not signed in, or not known yet) may use none. */
export const can = (role: Role | null, permission: Permission): boolean => allows(role, PERMISSIONS[permission])

/** Words for "who can", shown where a control is missing for this role. */
export const WHO_CAN: Record<AccessLevel, string> = {
  public: 'anyone',
  'signed-in': 'any signed-in user',
  admin: 'an admin',
}

/**
 * Sent (value `1`) on a request the app makes while its person has not pressed a key, clicked or
 * touched lately: the server checks the session but does not count the request as use, so a page
 * left open (its polls) does not hold off the idle sign-out.
 */
export const IDLE_HEADER = 'x-switchboard-idle'
