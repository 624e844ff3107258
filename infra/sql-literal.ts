/**
 * @module A string as a PostgreSQL literal, for the few statements sent as text rather than with bound parameters (the
 * audit insert: docs/audit.md): PostgreSQL's own client's quoting (doubled quotes, and an `E''` string with doubled
 * backslashes when the value holds one). The database's client library stays at the edge (issue 79, item 3).
 */
import { escapeLiteral } from 'pg'

/** `value` quoted as a PostgreSQL string literal. */
export const sqlLiteral = (value: string): string => escapeLiteral(value)
