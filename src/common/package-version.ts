/**
 * The package's version, as in its package.json (a spec keeps the two equal):
 * a constant, so the CommonJS and ESM builds and the browser client read it
 * without touching the file system.
 *
 * @publicApi
 */
export const PACKAGE_VERSION = '0.1.0';
