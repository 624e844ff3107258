/**
 * @module PostgreSQL frontend messages built by hand, for tests of the embedded server that must see (or send) the exact
 * protocol `pg` hides: the type byte, the length, the body.
 */

/** A typed message: type, length (itself included), body. */
export function message(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts)
  const header = Buffer.alloc(5)
  header.write(type, 0, 'latin1')
  header.writeInt32BE(body.length + 4, 1)
  return Buffer.concat([header, body])
}

export const cstr = (s: string) => Buffer.from(`${s}\0`)

export const int16 = (n: number) => {
  const b = Buffer.alloc(2)
  b.writeInt16BE(n)
  return b
}

export const int32 = (n: number) => {
  const b = Buffer.alloc(4)
  b.writeInt32BE(n)
  return b
}

/** Parse of `sql` into statement `name` (unnamed by default), with the parameter type OIDs given. */
export const parse = (sql: string, name = '', types: number[] = []) =>
  message('P', cstr(name), cstr(sql), int16(types.length), ...types.map(int32))
/** Bind of the unnamed portal to `statement`, no parameters, default formats. */
export const bind = (statement = '') => message('B', cstr(''), cstr(statement), int16(0), int16(0), int16(0))
export const describePortal = () => message('D', Buffer.from('P'), cstr(''))
export const describeStatement = (name = '') => message('D', Buffer.from('S'), cstr(name))
export const closeStatement = (name = '') => message('C', Buffer.from('S'), cstr(name))
export const execute = () => message('E', cstr(''), int32(0))
export const sync = () => message('S')
export const query = (sql: string) => message('Q', cstr(sql))
/** Parse, Bind, Describe, Execute and Sync of `sql`: what `pg` sends for one statement. */
export const exchange = (sql: string) => Buffer.concat([parse(sql), bind(), describePortal(), execute(), sync()])
