import { ownRequire } from './own-require.js';

// Nest's own packages share its major (`@nestjs/swagger` 11 wants Nest 11): a bare `npm install @nestjs/swagger`
// on a Nest 11 app installs 12, and npm refuses it (ERESOLVE). An install hint names the major the app has.

/** The major of the Nest installed beside this package (`@nestjs/common`'s, else `@nestjs/core`'s); none: undefined. */
export function installedNestMajor(require: (id: string) => unknown = ownRequire): number | undefined {
  for (const name of ['@nestjs/common', '@nestjs/core']) {
    try {
      const { version } = require(`${name}/package.json`) as { version?: unknown };
      const major = typeof version === 'string' ? Number.parseInt(version, 10) : Number.NaN;
      if (Number.isSafeInteger(major)) return major;
    } catch {
      // not installed: the next one, else no major to name
    }
  }
  return undefined;
}

/** `npm install [-D] <names>`, each of Nest's packages at `nestMajor` when one is known. */
export function npmInstallCommand(names: readonly string[], nestMajor: number | undefined, dev = false): string {
  const pinned = names.map((name) => (nestMajor !== undefined && name.startsWith('@nestjs/') ? `${name}@${nestMajor}` : name));
  return `npm install ${dev ? '-D ' : ''}${pinned.join(' ')}`;
}

/**
 * Loads an optional peer (`load` imports `name`); when `name` itself is not
 * installed, throws an error that says what needs it and the install that fits
 * the app's Nest, instead of Node's bare `Cannot find module`.
 */
export async function importPeer<T>(name: string, load: () => Promise<T>, neededFor: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException)?.code;
    // Only the peer's own absence: a package it failed to load is its own error.
    const absent = (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && (error as Error).message.includes(`'${name}'`);
    if (!absent) throw error;
    throw new Error(`${neededFor} needs ${name} (${npmInstallCommand([name], installedNestMajor(), true)})`, { cause: error });
  }
}
