// Sets the theme class on <html> before the first paint, so a dark-theme reader never sees a
// white flash. A separate file because the CSP allows scripts from 'self' only (no inline
// script). Keep the key and the rule in step with src/lib/theme.ts, which owns the toggle.
;(function () {
  var pref = 'system'
  try {
    var saved = localStorage.getItem('switchboard.theme')
    if (saved === 'light' || saved === 'dark') pref = saved
  } catch {
    // Storage refused (privacy mode): follow the system.
  }
  var dark = pref === 'dark' || (pref === 'system' && window.matchMedia('(prefers-color-scheme: dark)').matches)
  document.documentElement.classList.toggle('dark', dark)
  document.documentElement.setAttribute('data-theme', pref)
})()
