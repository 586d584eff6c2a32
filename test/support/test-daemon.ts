import type { INestApplication } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent.js';
import { createApp } from '../../src/daemon/create-app.js';
import type { DaemonConfig } from '../../src/daemon/daemon-config.js';
import type { DaemonOverrides } from '../../src/daemon/daemon.module.js';
import { ScriptedEngine } from '../../src/testing/scripted-engine.js';

export type Adapter = DaemonConfig['httpAdapter'];
export const ADAPTERS: Adapter[] = ['express', 'fastify'];

export interface TestDaemon {
  app: INestApplication;
  http: TestAgent;
  url: string;
  config: DaemonConfig;
  engine: ScriptedEngine;
  /** Stops the app; keeps the data dir unless `removeData`. */
  close(removeData?: boolean): Promise<void>;
  /** POST /session; returns sessionId and clientId. */
  createSession(body?: Record<string, unknown>): Promise<{ sessionId: string; clientId: string }>;
  /** POST /session/:id/prompt with one text block; returns the promptId. */
  prompt(sessionId: string, text: string, clientId?: string, extra?: Record<string, unknown>): Promise<string>;
}

/** A temporary directory for transcripts and workspaces. */
export function tempDir(prefix = 'turns-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * A real daemon on an ephemeral loopback port, with the testing kit's scripted engine
 * unless another is given.
 */
export async function startDaemon(config: Partial<DaemonConfig> = {}, overrides: DaemonOverrides = {}): Promise<TestDaemon> {
  const root = config.dataDir ?? tempDir();
  const full: DaemonConfig = {
    host: '127.0.0.1',
    port: 0,
    dataDir: root,
    workspaces: [root],
    agent: 'echo',
    maxPendingPrompts: 5,
    chatRecording: true,
    httpAdapter: 'express',
    echoDelayMs: 0,
    ...config,
  };
  const engine = new ScriptedEngine();
  const app = await createApp(full, { engine, ...overrides });
  await app.listen(0, '127.0.0.1');
  const http = request(app.getHttpServer());
  const url = await app.getUrl();
  const daemon: TestDaemon = {
    app,
    http,
    url: url.replace('[::1]', '127.0.0.1'),
    config: full,
    engine,
    async close(removeData = false) {
      await app.close();
      if (removeData) rmSync(root, { recursive: true, force: true });
    },
    async createSession(body = {}) {
      const res = await http.post('/session').send(body).expect(200);
      return { sessionId: res.body.sessionId, clientId: res.body.clientId };
    },
    async prompt(sessionId, text, clientId, extra = {}) {
      const req = http.post(`/session/${sessionId}/prompt`);
      if (clientId) req.set('X-Qwen-Client-Id', clientId);
      const res = await req.send({ prompt: [{ type: 'text', text }], ...extra }).expect(202);
      return res.body.promptId;
    },
  };
  return daemon;
}
