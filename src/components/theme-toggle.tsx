import { THEME_CHOICES, useThemePreference } from '../lib/theme'

/** System / Light / Dark, for the header. A labelled select: one control, one tab stop, compact on a phone. */
export function ThemeToggle() {
  const [pref, setPref] = useThemePreference()
  return (
    <label className="flex items-center gap-1 text-sm text-slate-700" data-print="hide">
      <span>Theme</span>
      <select
        className="input min-h-6 py-1"
        value={pref}
        onChange={(e) => {
          setPref(THEME_CHOICES.find((c) => c.value === e.target.value)?.value ?? 'system')
        }}
      >
        {THEME_CHOICES.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    </label>
  )
}
