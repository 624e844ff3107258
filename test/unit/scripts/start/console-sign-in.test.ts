/** The console's development sign-in runs under `npm start`, except under NODE_ENV=production. */
import { describe, expect, it } from 'vitest'
import { developmentSignInOn } from '../../../../scripts/start/console-sign-in.ts'

describe('the development sign-in', () => {
  it.each([
    [undefined, true],
    ['development', true],
    ['test', true],
    ['production', false],
  ])('under NODE_ENV=%s: %s', (nodeEnv, on) => {
    expect(developmentSignInOn(nodeEnv)).toBe(on)
  })
})
