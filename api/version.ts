/** @module The API's semantic version (docs/versioning.md: 2.3.0 is the latest release), sent as `X-Api-Version`. */
export const API_VERSION = '2.3.0'
