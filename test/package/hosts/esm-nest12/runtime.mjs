// A host that embeds the reference runtime: its session, prompt and event
// routes come with RuntimeModule; the turn routes with TurnsModule.
import 'reflect-metadata';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TurnsModule } from 'nest-turn-status';
import { EchoEngine, RuntimeModule } from 'nest-turn-status/runtime';

const dataDir = mkdtempSync(join(tmpdir(), 'host-runtime-'));
const runtime = RuntimeModule.forRoot({ workspaces: [dataDir], dataDir, engine: { useFactory: () => new EchoEngine(0) } });

class AppModule {}
Module({ imports: [runtime, TurnsModule.forRoot({ imports: [runtime] })] })(AppModule);

const app = await NestFactory.create(AppModule, { logger: false });
await app.listen(0, '127.0.0.1');
console.log(JSON.stringify({ url: await app.getUrl() }));
