/**
 * @module The content hashes that make a signed note and its addenda tamper-evident. A hash is SHA-256 (lowercase
 * hex) over the canonical JSON (RFC 8785, ../canonical-json.ts) of exactly the members below, built from the API's
 * own response fields, so a client can recompute and compare it without any server secret (docs/care-records.md).
 * Each addendum's hash includes the note's hash, chaining the addendum to the exact signed content it amends.
 */
import { createHash } from 'node:crypto'
import { canonicalJson, type JsonValue } from '../canonical-json.ts'

/** Names the construction, in responses, so it can evolve without breaking old hashes. */
export const NOTE_HASH_ALGORITHM = 'sha256-rfc8785-v1'

/** What a signed note's hash covers: the SOAP content plus who signed it, when, and which note of which session. */
export interface SignedNoteContent {
  noteId: string
  sessionId: string
  subjective: string | null
  objective: JsonValue
  assessment: string | null
  plan: string | null
  signedByProviderId: string
  /** UTC, millisecond precision, with Z (as the API shows it). */
  signedAt: string
}

/** What an addendum's hash covers. */
export interface AddendumContent {
  addendumId: string
  noteId: string
  /** The hash of the signed note the addendum amends. */
  noteContentHash: string
  reason: string
  text: string
  authorType: string
  authorId: string | null
  authorProviderId: string | null
  /** UTC, millisecond precision, with Z. */
  createdAt: string
}

const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')

/** The hash of a signed note. @returns 64 lowercase hex characters */
export const noteContentHash = (content: SignedNoteContent): string => sha256Hex(canonicalJson(content))

/** The hash of an addendum. @returns 64 lowercase hex characters */
export const addendumContentHash = (content: AddendumContent): string => sha256Hex(canonicalJson(content))
