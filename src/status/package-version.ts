/** This package's version, as `GET /daemon/status` reports it (a spec keeps it equal to package.json's). */
export const PACKAGE_VERSION = '0.1.0';
