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
    expect(serveNeedsMessage(['@nestjs/core', 'reflect-metadata'], '@nestjs/core', undefined)).toBe(
      'serve needs the packages @nestjs/core, reflect-metadata: npm install @nestjs/core reflect-metadata\n',
    );
    expect(serveNeedsMessage([], 'pino', 11)).toBe('serve needs the package pino: npm install pino\n');
  });

  it("installs Nest's packages at the major installed: on Nest 11, @nestjs/swagger 11 (a bare install takes 12, which npm refuses)", () => {
    expect(serveNeedsMessage(['@nestjs/swagger'], '@nestjs/swagger', 11)).toBe(
      'serve needs the package @nestjs/swagger: npm install @nestjs/swagger@11\n',
    );
    expect(serveNeedsMessage(['@nestjs/platform-express', 'rxjs'], '@nestjs/platform-express', 12)).toBe(
      'serve needs the packages @nestjs/platform-express, rxjs: npm install @nestjs/platform-express@12 rxjs\n',
    );
  });
});
