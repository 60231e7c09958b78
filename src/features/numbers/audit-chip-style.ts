/** A chip's colours by severity (a dashed border too, so "worth a look" is not told by colour alone), and a pressed chip's. */
export const CLASS_STYLE = {
  problem: 'border-red-700 bg-red-50 text-red-900 hover:bg-red-100',
  look: 'border-dashed border-amber-700 bg-amber-50 text-amber-950 hover:bg-amber-100',
  none: 'border-green-700 bg-green-50 text-green-900 hover:bg-green-100',
} as const
export const PRESSED = 'border-blue-800 bg-blue-800 text-white'
