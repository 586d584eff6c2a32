import { readFileSync } from 'node:fs';
import { importPeer, installedNestMajor, npmInstallCommand } from './peer-install.js';

describe('install hints for optional peers', () => {
  it("pins Nest's own packages to the installed major, and nothing else", () => {
    expect(npmInstallCommand(['@nestjs/swagger', 'reflect-metadata'], 11)).toBe('npm install @nestjs/swagger@11 reflect-metadata');
    expect(npmInstallCommand(['@nestjs/testing'], 12, true)).toBe('npm install -D @nestjs/testing@12');
    expect(npmInstallCommand(['@nestjs/core', 'rxjs'], undefined)).toBe('npm install @nestjs/core rxjs');
  });

  it("reads the major of @nestjs/common, else @nestjs/core's, else none", () => {
    const installed = (versions: Record<string, string>) => (id: string) => {
      const version = versions[id.replace('/package.json', '')];
      if (version === undefined) throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
      return { version };
    };
    expect(installedNestMajor(installed({ '@nestjs/common': '11.1.6', '@nestjs/core': '11.1.6' }))).toBe(11);
    expect(installedNestMajor(installed({ '@nestjs/core': '12.0.0-rc.1' }))).toBe(12);
    expect(installedNestMajor(installed({}))).toBeUndefined();
    // This repository's own Nest.
    const own = JSON.parse(readFileSync(require.resolve('@nestjs/common/package.json'), 'utf8')) as { version: string };
    expect(installedNestMajor()).toBe(Number.parseInt(own.version, 10));
  });

  it('names what needs a peer that is not installed, and the install that fits, keeping Node’s error as the cause', async () => {
    const name = 'nest-turn-status-absent-peer';
    const failure = await importPeer(name, () => import(name), "createTurnsTestingApp: adapter 'fastify'").catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe(`createTurnsTestingApp: adapter 'fastify' needs ${name} (npm install -D ${name})`);
    expect(((failure as Error).cause as NodeJS.ErrnoException).code).toMatch(/MODULE_NOT_FOUND$/);
  });

  it("passes on any other failure, a missing package of the peer's own included", async () => {
    const broken = Object.assign(new Error("Cannot find module 'fastify'"), { code: 'MODULE_NOT_FOUND' });
    await expect(importPeer('@nestjs/platform-fastify', () => Promise.reject(broken), 'x')).rejects.toBe(broken);
    await expect(importPeer('@nestjs/core', () => import('@nestjs/core'), 'x')).resolves.toHaveProperty('NestFactory');
  });
});
