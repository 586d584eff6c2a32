import { missingPackages, SERVE_PACKAGES, serveNeedsMessage } from './serve-packages.js';

describe('serve packages', () => {
  it('lists the ones that do not resolve, in order', () => {
    const installed = new Set(['@nestjs/common', 'rxjs']);
    const resolve = (name: string) => {
      if (!installed.has(name)) throw Object.assign(new Error(`Cannot find module '${name}'`), { code: 'MODULE_NOT_FOUND' });
      return `/x/${name}`;
    };
    expect(missingPackages(SERVE_PACKAGES, resolve)).toEqual([
      '@nestjs/core',
      '@nestjs/platform-express',
      '@nestjs/swagger',
      'reflect-metadata',
    ]);
    expect(missingPackages(SERVE_PACKAGES, () => '/x')).toEqual([]);
  });

  it('names every missing one in one npm install, or the one the import named', () => {
    expect(serveNeedsMessage(['@nestjs/core', 'reflect-metadata'], '@nestjs/core')).toBe(
      'serve needs the packages @nestjs/core, reflect-metadata: npm install @nestjs/core reflect-metadata\n',
    );
    expect(serveNeedsMessage([], 'pino')).toBe('serve needs the package pino: npm install pino\n');
  });
});
