/**
 * @module Where the processor may send a provider after onboarding (`returnUrl`, `refreshUrl`). The processor puts
 * the provider's browser on these URLs straight from its own pages, so an unchecked URL would make the platform an
 * open redirect with the processor's reputation attached (a phishing page that looks like the end of onboarding).
 * Tenants have no domain setting of their own, so the tenant's domains are the ones it has registered with us: the
 * hosts of its webhook endpoints (enabled or not), plus the platform's own host (`PUBLIC_URL`). Only `https://`.
 */
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import { validationError, type FieldError } from '../errors.ts'

export interface RedirectUrls {
  returnUrl: string
  refreshUrl: string
}

/** The hosts the tenant's redirect URLs may name: its webhook endpoints' and the platform's own. */
async function allowedHosts({ tx, tenantId }: UnitOfWork, publicUrl: string): Promise<Set<string>> {
  const endpoints = await tx.webhookEndpoint.findMany({ where: { tenantId }, select: { url: true } })
  const hosts = new Set<string>([new URL(publicUrl).host])
  for (const { url } of endpoints) {
    try {
      hosts.add(new URL(url).host)
    } catch {
      // A stored URL that no longer parses names no host.
    }
  }
  return hosts
}

/**
 * Checks both URLs: `https://`, and a host the tenant has registered (see the module).
 * @param publicUrl - the platform's `PUBLIC_URL`
 * @throws AppError `validation_error`, one field error per refused URL (`https_required` or `host_not_allowed`)
 */
export async function assertRedirectUrls(uow: UnitOfWork, urls: RedirectUrls, publicUrl: string): Promise<void> {
  const hosts = await allowedHosts(uow, publicUrl)
  const errors: FieldError[] = []
  for (const field of ['returnUrl', 'refreshUrl'] as const) {
    const url = new URL(urls[field])
    if (url.protocol !== 'https:') {
      errors.push({ path: field, code: 'https_required', message: 'Use an https:// URL.' })
    } else if (!hosts.has(url.host)) {
      errors.push({
        path: field,
        code: 'host_not_allowed',
        message: `${url.host} is not one of this tenant's domains (the hosts of its webhook endpoints, or the platform's).`,
      })
    }
  }
  if (errors.length > 0) throw validationError(errors, 'Onboarding redirects must go to one of your own https sites.')
}
