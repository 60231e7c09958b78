import { useSyncExternalStore } from 'react'

/**
 * The colour theme: "system" follows prefers-color-scheme (and its changes while the page is
 * open), "light" and "dark" are the reader's choice, remembered in localStorage. The class on
 * <html> is what the CSS reads (src/index.css remaps the palette under `.dark`); public/theme.js
 * applies the same rule before the first paint, so this module only takes over from there.
 */
export type ThemePreference = 'system' | 'light' | 'dark'

export const THEME_KEY = 'switchboard.theme'
export const THEME_CHOICES: ReadonlyArray<{ value: ThemePreference; label: string }> = [
  { value: 'system', label: 'System' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
]

const DARK_QUERY = '(prefers-color-scheme: dark)'

export function readPreference(): ThemePreference {
  try {
    const v = localStorage.getItem(THEME_KEY)
    return v === 'light' || v === 'dark' ? v : 'system'
  } catch {
    return 'system'
  }
}

export function systemIsDark(): boolean {
  return typeof matchMedia === 'function' && matchMedia(DARK_QUERY).matches
}

export function isDark(pref: ThemePreference, systemDark: boolean): boolean {
  return pref === 'dark' || (pref === 'system' && systemDark)
}

function apply(pref: ThemePreference) {
  const root = document.documentElement
  root.classList.toggle('dark', isDark(pref, systemIsDark()))
  root.setAttribute('data-theme', pref)
}

const listeners = new Set<() => void>()
let current: ThemePreference | null = null

export function setPreference(pref: ThemePreference) {
  try {
    if (pref === 'system') localStorage.removeItem(THEME_KEY)
    else localStorage.setItem(THEME_KEY, pref)
  } catch {
    // Not remembered (storage refused), still applied for this page.
  }
  current = pref
  apply(pref)
  for (const l of listeners) l()
}

function subscribe(listener: () => void) {
  listeners.add(listener)
  // While "system" is chosen, a change of the system's scheme recolours the open page.
  const mq = typeof matchMedia === 'function' ? matchMedia(DARK_QUERY) : null
  const onSystem = () => {
    apply(getPreference())
    listener()
  }
  mq?.addEventListener('change', onSystem)
  // Another tab changed the choice: follow it here too.
  const onStorage = (e: StorageEvent) => {
    if (e.key !== THEME_KEY && e.key !== null) return
    current = readPreference()
    apply(current)
    listener()
  }
  window.addEventListener('storage', onStorage)
  return () => {
    listeners.delete(listener)
    mq?.removeEventListener('change', onSystem)
    window.removeEventListener('storage', onStorage)
  }
}

function getPreference(): ThemePreference {
  current ??= readPreference()
  return current
}

export function useThemePreference(): [ThemePreference, (pref: ThemePreference) => void] {
  const pref = useSyncExternalStore(subscribe, getPreference, () => 'system' as const)
  return [pref, setPreference]
}
