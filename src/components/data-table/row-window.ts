/** Rows rendered beyond the visible ones on each side, so a scroll shows rows, not blank space. */
export const OVERSCAN = 8

/** The scroll box's size before it exists (the first render): most of the window, so the first commit holds rows. */
export const INITIAL_RECT =
  typeof window === 'undefined' ? { width: 0, height: 0 } : { width: window.innerWidth, height: Math.round(window.innerHeight * 0.7) }
