/**
 * @module A labelled text input with its hint and the API's error for it, both tied to the input for screen readers
 * (`aria-describedby`), and marked invalid while the error stands.
 */
import type { HTMLInputTypeAttribute } from 'react'

export function TextField(p: {
  id: string
  label: string
  value: string
  onChange: (value: string) => void
  error?: string | undefined
  hint?: React.ReactNode
  type?: HTMLInputTypeAttribute
}) {
  const described = [p.hint && `${p.id}-hint`, p.error && `${p.id}-error`].filter(Boolean).join(' ')
  return (
    <>
      <label htmlFor={p.id}>{p.label}</label>
      <input
        id={p.id}
        type={p.type ?? 'text'}
        value={p.value}
        onChange={(e) => p.onChange(e.target.value)}
        aria-invalid={p.error ? true : undefined}
        aria-describedby={described || undefined}
      />
      {p.hint && (
        <p id={`${p.id}-hint`} className="quiet">
          {p.hint}
        </p>
      )}
      {p.error && (
        <p id={`${p.id}-error`} className="field-error">
          {p.error}
        </p>
      )}
    </>
  )
}
