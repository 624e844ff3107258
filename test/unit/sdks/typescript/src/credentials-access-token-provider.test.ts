/**
 * Credentials for apps that must not hold a client secret (sdks/typescript/src/credentials.ts, `accessToken`): the app's
 * backend hands over `{ access_token, expires_in }`; the SDK uses it until shortly before it expires, asks once for
 * every call waiting, and asks again after a 401.
 */
import { describe, expect, it } from 'vitest'
import { accessTokenProviderSource } from '../../../../../sdks/typescript/src/credentials.ts'

function backend(lifetimeSeconds = 900) {
  let now = 1_000_000
  let issued = 0
  let release: (() => void) | undefined
  const state = {
    asked: 0,
    hold: false,
    now: () => now,
    advance: (ms: number) => (now += ms),
    release: () => release?.(),
    provider: async () => {
      state.asked++
      if (state.hold) await new Promise<void>((resolve) => (release = resolve))
      return { access_token: `at_${++issued}`, expires_in: lifetimeSeconds, refresh_token: 'never-kept' }
    },
  }
  return state
}

describe('accessToken provider', () => {
  it('keeps a token until shortly before it expires, then asks the backend again', async () => {
    const b = backend(900)
    const source = accessTokenProviderSource(b.provider, b.now)
    expect(await source.bearer()).toBe('at_1')
    b.advance(839_000) // 14 min 59 s - 60 s early renewal: still in use
    expect(await source.bearer()).toBe('at_1')
    b.advance(2_000)
    expect(await source.bearer()).toBe('at_2')
    expect(b.asked).toBe(2)
  })

  it('asks once for every call waiting on a token', async () => {
    const b = backend()
    b.hold = true
    const source = accessTokenProviderSource(b.provider, b.now)
    const waiting = Promise.all([source.bearer(), source.bearer(), source.bearer()])
    await new Promise((resolve) => setTimeout(resolve, 5))
    b.release()
    expect(await waiting).toEqual(['at_1', 'at_1', 'at_1'])
    expect(b.asked).toBe(1)
  })

  it('asks again after a 401 on the current token, but not for a token already replaced', async () => {
    const b = backend()
    const source = accessTokenProviderSource(b.provider, b.now)
    expect(await source.bearer()).toBe('at_1')
    expect(await source.renew('at_1')).toBe(true)
    expect(await source.bearer()).toBe('at_2')
    // A late 401 for the old token: another call already renewed.
    expect(await source.renew('at_1')).toBe(true)
    expect(await source.bearer()).toBe('at_2')
    expect(b.asked).toBe(2)
  })

  it('passes the backend failure to the caller and asks again on the next call', async () => {
    let fail = true
    const source = accessTokenProviderSource(async () => {
      if (fail) throw new Error('backend down')
      return { access_token: 'at_ok', expires_in: 60 }
    }, Date.now)
    await expect(source.bearer()).rejects.toThrow('backend down')
    fail = false
    expect(await source.bearer()).toBe('at_ok')
  })

  it('refuses an answer without a token or a lifetime', async () => {
    const source = accessTokenProviderSource(async () => ({ access_token: 'x' }) as never, Date.now)
    await expect(source.bearer()).rejects.toThrow(/expires_in/)
  })
})
