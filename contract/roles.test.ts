import { describe, expect, it } from 'vitest'
import { ACCESS_LEVELS, allows, aRole, can, isRole, PERMISSIONS, ROLES, whoCan, WHO_CAN, type Permission } from './roles'

describe('contract/roles.ts', () => {
  it('ranks the roles: each may do what the roles before it may, and nobody signed out more than public', () => {
    for (const level of ACCESS_LEVELS) {
      expect(allows(null, level), level).toBe(level === 'public')
      for (let i = 1; i < ROLES.length; i++)
        if (allows(ROLES[i - 1]!, level)) expect(allows(ROLES[i]!, level), `${ROLES[i]} ${level}`).toBe(true)
    }
  })

  it("draws the agent's line: the desk and whole exports, not users, the access log or forgetting", () => {
    const agent = (Object.keys(PERMISSIONS) as Permission[]).filter((p) => can('agent', p))
    expect(agent.sort()).toEqual(['exportIndex', 'markHandled', 'readMessages', 'syncIndex'])
    expect((Object.keys(PERMISSIONS) as Permission[]).filter((p) => can('viewer', p)).sort()).toEqual([
      'markHandled',
      'readMessages',
      'syncIndex',
    ])
    expect((Object.keys(PERMISSIONS) as Permission[]).every((p) => can('admin', p))).toBe(true)
  })

  it('says who can in words, from the table', () => {
    // Agents and every role above them ("agents and admins" today; a role added between them joins the list).
    expect(whoCan('exportIndex')).toMatch(/^agents(, [a-z]+s)* and admins$/)
    expect(whoCan('manageUsers')).toBe('admins')
    expect(WHO_CAN['signed-in']).toBe('everyone signed in')
    expect(aRole('agent')).toBe('an agent')
    expect(aRole('viewer')).toBe('a viewer')
  })

  it('knows a role only by its own name', () => {
    for (const r of ROLES) expect(isRole(r)).toBe(true)
    for (const x of ['owner', 'Admin', 'constructor', '__proto__', 'toString', '', null, 3]) expect(isRole(x), String(x)).toBe(false)
  })
})
