// The baseline page's script (bench/baseline.html): fetch, JSON.parse, render the rows in view.
const ROW = 58
const scroller = document.getElementById('scroll')
const body = document.getElementById('body')
let rows = []
// Like the app's table: the rows in view first, the 8 rows of overscan in the task after that frame.
function render(overscan) {
  const first = Math.floor(scroller.scrollTop / ROW)
  const count = Math.ceil(scroller.clientHeight / ROW) + overscan
  const top = first * ROW
  const bottom = Math.max(0, (rows.length - first - count) * ROW)
  let html = `<tr style="height:${top}px"></tr>`
  for (let i = first; i < Math.min(rows.length, first + count); i++) {
    const r = rows[i]
    const cells = [r.number, r.type, r.country, r.tid, r.webhook, r.dlr].map((v) => {
      const td = document.createElement('td')
      td.textContent = v ?? ''
      return td.outerHTML
    })
    html += `<tr data-row="${i}">${cells.join('')}</tr>`
  }
  html += `<tr style="height:${bottom}px"></tr>`
  body.innerHTML = html
}
scroller.addEventListener('scroll', () => render(8), { passive: true })
fetch('/api/allownednumbers', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' })
  .then((r) => r.text())
  .then((text) => {
    rows = JSON.parse(text).data
    render(0)
    requestAnimationFrame(() => setTimeout(() => render(8), 0))
  })
