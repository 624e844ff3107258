/**
 * @module The SDK's own version, sent in `User-Agent`. It follows the SDK's releases (sdks/typescript/CHANGELOG.md), not the
 * API's: the API's version is `X-Api-Version` on every response. A unit test keeps it equal to sdks/typescript/package.json.
 */
export const SDK_VERSION = '0.2.0'
