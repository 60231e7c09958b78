import { useCallback, useEffect, useRef, useState } from 'react'

/** An image the viewer shows, and the thumbnail that opened it (focus goes back there). */
export interface ShownMedia {
  url: string
  alt: string
  opener: HTMLElement
}

/** A page's viewer: what it shows (null: closed), and open and close that stay the same across renders (cells take `open`). */
export function useMediaViewer() {
  const [media, setMedia] = useState<ShownMedia | null>(null)
  const open = useCallback((url: string, alt: string, opener: HTMLElement) => {
    setMedia({ url, alt, opener })
  }, [])
  const close = useCallback(() => {
    setMedia(null)
  }, [])
  return { media, open, close }
}

/**
 * The full-size image in a modal <dialog>: the browser traps focus and closes it on Escape;
 * we return focus to the thumbnail that opened it (WAI-ARIA dialog pattern). `media.url` is
 * the server's /api/media address, never the media's own host.
 */
export function MediaViewer({ media, onClose }: { media: ShownMedia | null; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const d = ref.current
    if (!d) return
    if (media && !d.open) d.showModal()
    if (!media && d.open) d.close()
  }, [media])
  const opener = media?.opener
  return (
    <dialog
      ref={ref}
      aria-label={media ? media.alt : 'Media viewer'}
      className="m-auto max-h-[90vh] max-w-[90vw] rounded-lg p-0 backdrop:bg-black/70"
      onClose={() => {
        onClose()
        opener?.focus()
      }}
      onClick={(e) => {
        if (e.target === ref.current) ref.current.close()
      }}
    >
      {media ? (
        <figure className="flex flex-col gap-2 p-3">
          <div className="flex items-center justify-between gap-4">
            <figcaption className="text-sm font-medium">{media.alt}</figcaption>
            <button type="button" className="btn" onClick={() => ref.current?.close()} autoFocus>
              Close
            </button>
          </div>
          <img src={media.url} alt={media.alt} referrerPolicy="no-referrer" className="max-h-[75vh] max-w-full object-contain" />
          <a
            href={media.url}
            target="_blank"
            rel="noopener noreferrer"
            referrerPolicy="no-referrer"
            className="text-sm text-blue-800 underline"
          >
            Open full size in a new tab
          </a>
        </figure>
      ) : null}
    </dialog>
  )
}
