/** This package's version (package.json says the same; a unit test holds them together). */
export const REACT_SDK_VERSION = '0.1.0'
