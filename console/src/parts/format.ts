/** @module How the console writes times and states: the browser's own locale and time zone. */

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

/** An ISO instant as the reader's local date and time; empty for null. */
export const when = (iso: string | null | undefined) => (iso ? dateTime.format(new Date(iso)) : '')

/** A byte count in the unit a person reads. */
export function bytes(count: number): string {
  if (count < 1024) return `${count} B`
  if (count < 1024 * 1024) return `${(count / 1024).toFixed(1)} KB`
  return `${(count / 1024 / 1024).toFixed(1)} MB`
}
