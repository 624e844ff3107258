/** @module Text put into the HTML pages the platform serves (error-code pages, the console's page). */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** `text` safe in an element's content and in a quoted attribute. */
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => ENTITIES[ch]!)
