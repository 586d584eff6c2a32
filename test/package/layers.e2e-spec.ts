import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** Lints each [file, code] pair with the project's ESLint config, in a child process (ESLint loads its config as ESM). */
function restrictedImports(cases: Array<[string, string]>): string[][] {
  const script = `
    const { ESLint } = await import('eslint');
    const eslint = new ESLint({ cwd: process.cwd() });
    const out = [];
    for (const [file, code] of JSON.parse(process.argv[1])) {
      const [result] = await eslint.lintText(code + '\\nexport const x = 1;\\n', { filePath: file });
      out.push(result.messages.filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message));
    }
    console.log(JSON.stringify(out));`;
  const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(cases)], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(stdout);
}

/**
 * The layering lint rule must be able to fail: each case lints a line as if it
 * stood in a file of that layer.
 */
describe('package layers (lint rule)', () => {
  const reversed: Array<[string, string]> = [
    ['src/turns/x.ts', "import { PromptBridge } from '../bridge/prompt-bridge.js';"],
    ['src/common/x.ts', "import { createApp } from '../daemon/create-app.js';"],
    ['src/turns/x.ts', "import { client } from '@agentclientprotocol/sdk';"],
    ['src/client-id/x.ts', "import { FastifyAdapter } from '@nestjs/platform-fastify';"],
    ['src/bridge/x.ts', "import { AcpEngine } from '../acp/acp.engine.js';"],
    ['src/sessions/x.ts', "import { main } from '../daemon/main.js';"],
    ['src/acp/x.ts', "import { createApp } from '../daemon/create-app.js';"],
    ['src/daemon/x.ts', "import { FastifyAdapter } from '@nestjs/platform-fastify';"],
    ['src/daemon/x.ts', "import { AcpEngine } from '../acp/acp.engine.js';"],
    ['src/client/x.ts', "import { Injectable } from '@nestjs/common';"],
    ['src/client/x.ts', "import { readFile } from 'node:fs/promises';"],
    ['src/client/x.ts', "import { TURN_STATES } from '../turns/turn-status.js';"],
    ['src/turns/x.ts', "import { TurnsClient } from '../client/turns-client.js';"],
    ['src/turns/x.ts', "import { Registry } from 'prom-client';"],
    ['src/common/x.ts', "import pino from 'pino';"],
    ['src/telemetry/x.ts', "import { trace } from '@opentelemetry/api';"],
    ['src/bridge/x.ts', "import { TurnsMetrics } from '../metrics/turns-metrics.js';"],
    ['src/cluster/x.ts', "import { DaemonLogger } from '../logging/daemon-logger.js';"],
    ['src/logging/x.ts', "import { PromptBridge } from '../bridge/prompt-bridge.js';"],
    ['src/common/x.ts', "import { IdempotencyStore } from '../idempotency/idempotency-store.js';"],
    ['src/turns/x.ts', "import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';"],
    ['src/webhooks/x.ts', "import { ClusterNode } from '../cluster/node/cluster-node.js';"],
    ['src/webhooks/x.ts', "import { request } from 'undici';"],
    ['src/webhooks/verify.ts', "import { Injectable } from '@nestjs/common';"],
    ['src/webhooks/turn-webhook-signature.ts', "import { apiError } from '../errors/api-errors.js';"],
    ['src/client/x.ts', "import { ERROR_CATALOGUE } from '../errors/error-catalogue.js';"],
  ];
  const downward: Array<[string, string]> = [
    ['src/bridge/x.ts', "import { sessionNotFound } from '../errors/api-errors.js';"],
    ['src/client/x.ts', "import type { ApiErrorCode } from '../errors/error-catalogue.js';"],
    ['src/acp/x.ts', "import { AgentEngine } from '../engines/agent-engine.js';"],
    ['src/daemon/x.ts', "import { RuntimeModule } from '../runtime/runtime.module.js';"],
    ['src/daemon/x.ts', "export const load = () => import('@nestjs/platform-fastify');"],
    ['src/client/x.ts', "import type { TurnStatus } from '../turns/turn-status.js';"],
    ['src/daemon/x.ts', "import { TurnsClient } from '../client/turns-client.js';"],
    ['src/metrics/x.ts', "import { Registry } from 'prom-client';"],
    ['src/logging/x.ts', "import pino from 'pino';"],
    ['src/telemetry/x.ts', "export const load = () => import('@opentelemetry/api');"],
    ['src/daemon/x.ts', "import { TurnsMetrics } from '../metrics/turns-metrics.js';"],
    ['src/daemon/x.ts', "import { isWebhookSecret } from '../webhooks/webhook-secret.js';"],
    ['src/webhooks/verify.ts', "import type { TurnStatus } from '../turns/turn-status.js';"],
    ['src/bridge/x.ts', "import type { AdmissionIdempotency } from '../idempotency/idempotency.interceptor.js';"],
  ];
  let results: string[][];
  beforeAll(() => {
    results = restrictedImports([...reversed, ...downward]);
  });

  it.each(reversed.map((c, i) => [...c, i] as const))('refuses a reversed import in %s: %s', (_file, _code, i) => {
    expect(results[i]).toHaveLength(1);
  });

  it.each(downward.map((c, i) => [...c, reversed.length + i] as const))('allows a downward import in %s: %s', (_file, _code, i) => {
    expect(results[i]).toEqual([]);
  });
});
