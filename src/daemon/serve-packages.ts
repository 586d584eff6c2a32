import { npmInstallCommand } from '../common/peer-install.js';

/**
 * What `serve` loads beside this package: Nest, its Express platform and
 * Swagger (for `/docs`). They are optional peers, so a CLI-only install has
 * none of them; `serve` names every missing one at once.
 */
export const SERVE_PACKAGES = ['@nestjs/common', '@nestjs/core', '@nestjs/platform-express', '@nestjs/swagger', 'reflect-metadata', 'rxjs'];

/** Those of `names` that `resolve` cannot find. */
export function missingPackages(names: readonly string[], resolve: (name: string) => unknown): string[] {
  return names.filter((name) => {
    try {
      resolve(name);
      return false;
    } catch {
      return true;
    }
  });
}

/**
 * The line `serve` prints when a package it loads is missing: each missing one, or the one the import named;
 * Nest's own at the major installed (`nestMajor`), as npm would pick a newer one that refuses it.
 */
export function serveNeedsMessage(missing: readonly string[], named: string, nestMajor: number | undefined): string {
  const names = missing.length > 0 ? missing : [named];
  return `serve needs the package${names.length > 1 ? 's' : ''} ${names.join(', ')}: ${npmInstallCommand(names, nestMajor)}\n`;
}
