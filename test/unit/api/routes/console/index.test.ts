/** The console page's policy: its own origin for everything, the identity providers only for its sign-in calls. */
import { describe, expect, it } from 'vitest'
import { consolePolicy } from '../../../../../api/routes/console/index.ts'

describe('the console page policy', () => {
  it('runs only its own files, framed by nobody, with the providers added to connect-src alone', () => {
    const policy = consolePolicy(['https://login.centre.org'])
    const directives = Object.fromEntries(
      policy.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')])
    )
    expect(directives).toEqual({
      'default-src': "'none'",
      'script-src': "'self'",
      'style-src': "'self'",
      'img-src': "'self' data:",
      'connect-src': "'self' https://login.centre.org",
      'font-src': "'self'",
      'base-uri': "'none'",
      'form-action': "'self'",
      'frame-ancestors': "'none'",
    })
    expect(consolePolicy([])).toContain("connect-src 'self';")
  })
})
