import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** One case: the files of a small src/ tree, each path with its code. */
type Tree = Record<string, string>;

/**
 * Cruises each tree with the project's dependency-cruiser config, in a child process (dependency-cruiser is ESM and
 * resolves from the working directory): a tree is written to a fresh directory beside a link to node_modules, every
 * relative import gets an empty target file, and the answer is the names of the rules each tree breaks.
 */
function violations(trees: Tree[]): string[][] {
  const script = `
    const { mkdtempSync, mkdirSync, writeFileSync, symlinkSync, rmSync, existsSync } = await import('node:fs');
    const { dirname, join, resolve } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const { cruise } = await import('dependency-cruiser');
    const root = process.cwd();
    const config = (await import(join(root, '.dependency-cruiser.cjs'))).default;
    const out = [];
    for (const tree of JSON.parse(process.argv[1])) {
      const dir = mkdtempSync(join(tmpdir(), 'layers-'));
      try {
        symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
        writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }));
        for (const [file, code] of Object.entries(tree)) {
          mkdirSync(dirname(join(dir, file)), { recursive: true });
          writeFileSync(join(dir, file), code);
          for (const [, target] of code.matchAll(/'(\\.{1,2}\\/[^']+)\\.js'/g)) {
            const stub = resolve(dirname(join(dir, file)), target + '.ts');
            if (!existsSync(stub) && !Object.keys(tree).some((other) => join(dir, other) === stub)) {
              mkdirSync(dirname(stub), { recursive: true });
              writeFileSync(stub, 'export {};');
            }
          }
        }
        process.chdir(dir);
        const { output } = await cruise(['src'], { ...config.options, validate: true, ruleSet: { forbidden: config.forbidden }, tsConfig: undefined });
        out.push([...new Set(output.summary.violations.map((v) => v.rule.name))].sort());
      } finally {
        process.chdir(root);
        rmSync(dir, { recursive: true, force: true });
      }
    }
    console.log(JSON.stringify(out));`;
  const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(trees)], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(stdout);
}

/** A file whose import is used as a value, so a compiler keeps it (an unused binding is dropped, as a type is). */
const file = (code: string): string => {
  const names = [...code.matchAll(/import (?!type)(?:\{ ?(\w+)[^}]*\}|(\w+)) from/g)].map((match) => match[1] ?? match[2]);
  return `${code}\nexport const used = [${names.join(', ')}];\n`;
};

// The layering must be able to fail: each reversed import breaks the rule named beside it, each downward one none.
describe('layers and packages (npm run lint:deps)', () => {
  const reversed: Array<[string, string, string]> = [
    ['src/turns/x.ts', "import { PromptBridge } from '../bridge/prompt-bridge.js';", 'layer-2-imports-above'],
    ['src/common/x.ts', "import { createApp } from '../daemon/create-app.js';", 'layer-0-imports-above'],
    ['src/errors/x.ts', "import { WAIT } from '../turns/wait/wait.settings.js';", 'layer-1-imports-above'],
    ['src/turns/x.ts', "import { client } from '@agentclientprotocol/sdk';", 'package-root-loads-without'],
    ['src/client-id/x.ts', "import { FastifyAdapter } from '@nestjs/platform-fastify';", 'package-root-loads-without'],
    ['src/bridge/x.ts', "import { AcpEngine } from '../acp/acp.engine.js';", 'package-runtime-imports-above'],
    ['src/sessions/x.ts', "import { main } from '../daemon/main.js';", 'package-runtime-imports-above'],
    ['src/acp/x.ts', "import { createApp } from '../daemon/create-app.js';", 'package-acp-imports-above'],
    ['src/daemon/x.ts', "import { FastifyAdapter } from '@nestjs/platform-fastify';", 'package-daemon-loads-without'],
    ['src/daemon/x.ts', "import { AcpEngine } from '../acp/acp.engine.js';", 'package-daemon-loads-when-chosen'],
    ['src/daemon/x.ts', "import { ClusterRouter } from '../cluster/routing/cluster-router.js';", 'package-daemon-loads-when-chosen'],
    ['src/client/x.ts', "import { Injectable } from '@nestjs/common';", 'package-client-loads-without'],
    ['src/client/x.ts', "import { readFile } from 'node:fs/promises';", 'package-client-no-node-builtin'],
    ['src/client/x.ts', "import { TURN_STATES } from '../turns/turn-status.js';", 'package-client-takes-types-only'],
    ['src/turns/x.ts', "import { TurnsClient } from '../client/turns-client.js';", 'package-root-imports-above'],
    ['src/turns/x.ts', "import { Registry } from 'prom-client';", 'package-root-loads-without'],
    ['src/common/x.ts', "import pino from 'pino';", 'package-root-loads-without'],
    ['src/telemetry/x.ts', "import { trace } from '@opentelemetry/api';", 'package-root-loads-without'],
    ['src/bridge/x.ts', "import { TurnsMetrics } from '../metrics/turns-metrics.js';", 'package-runtime-imports-above'],
    ['src/cluster/x.ts', "import { DaemonLogger } from '../logging/daemon-logger.js';", 'package-cluster-imports-above'],
    ['src/logging/x.ts', "import { PromptBridge } from '../bridge/prompt-bridge.js';", 'package-logging-imports-above'],
    ['src/common/x.ts', "import { IdempotencyStore } from '../idempotency/idempotency-store.js';", 'package-root-imports-above'],
    ['src/turns/x.ts', "import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';", 'package-root-imports-above'],
    ['src/webhooks/x.ts', "import { ClusterNode } from '../cluster/node/cluster-node.js';", 'package-runtime-imports-above'],
    ['src/webhooks/x.ts', "import { request } from 'undici';", 'package-runtime-loads-without'],
    ['src/webhooks/verify.ts', "import { Injectable } from '@nestjs/common';", 'package-webhooks-verify-loads-without'],
    [
      'src/webhooks/turn-webhook-signature.ts',
      "import { apiError } from '../errors/api-errors.js';",
      'package-webhooks-verify-takes-types-only',
    ],
    ['src/client/x.ts', "import { ERROR_CATALOGUE } from '../errors/error-catalogue.js';", 'package-client-takes-types-only'],
    ['src/index.ts', "import { RuntimeModule } from './runtime/runtime.module.js';", 'package-root-imports-above'],
    // A subfolder sits in its parent's layer and package.
    ['src/cluster/leases/x.ts', "import { createApp } from '../../daemon/create-app.js';", 'layer-5-imports-above'],
    ['src/prompts/x.ts', "import { RuntimeModule } from '../runtime/runtime.module.js';", 'layer-5-imports-above'],
    ['src/newfolder/x.ts', "import { Clock } from '../common/clock.js';", 'unlayered-folder'],
  ];
  const downward: Array<[string, string]> = [
    ['src/bridge/x.ts', "import { sessionNotFound } from '../errors/api-errors.js';"],
    ['src/client/x.ts', "import type { ApiErrorCode } from '../errors/error-catalogue.js';"],
    ['src/acp/x.ts', "import { AgentEngine } from '../engines/agent-engine.js';"],
    ['src/daemon/x.ts', "import { RuntimeModule } from '../runtime/runtime.module.js';"],
    ['src/daemon/x.ts', "export const load = () => import('@nestjs/platform-fastify');"],
    ['src/daemon/x.ts', "export const load = () => import('../cluster/index.js');"],
    ['src/daemon/x.ts', "import { CLUSTER_MODE_SETTINGS } from '../cluster/cluster.settings.js';"],
    ['src/client/x.ts', "import type { TurnStatus } from '../turns/turn-status.js';"],
    ['src/daemon/x.ts', "import { TurnsClient } from '../client/turns-client.js';"],
    ['src/metrics/x.ts', "import { Registry } from 'prom-client';"],
    ['src/logging/x.ts', "import pino from 'pino';"],
    ['src/telemetry/x.ts', "export const load = () => import('@opentelemetry/api');"],
    ['src/testing/x.ts', "export type Testing = typeof import('@nestjs/testing');"],
    ['src/daemon/x.ts', "import { TurnsMetrics } from '../metrics/turns-metrics.js';"],
    ['src/daemon/x.ts', "import { isWebhookSecret } from '../webhooks/webhook-secret.js';"],
    ['src/webhooks/verify.ts', "import type { TurnStatus } from '../turns/turn-status.js';"],
    ['src/bridge/x.ts', "import type { AdmissionIdempotency } from '../idempotency/idempotency.interceptor.js';"],
    ['src/cluster/leases/x.ts', "import { SessionsService } from '../../sessions/sessions.service.js';"],
    ['src/prompts/x.ts', "import { PromptBridge } from '../bridge/prompt-bridge.js';"],
  ];
  const cycles: Array<[string, Tree]> = [
    [
      'two folders',
      {
        'src/errors/x.ts': file("import { y } from '../validation/y.js';"),
        'src/validation/y.ts': file("import { x } from '../errors/x.js';"),
      },
    ],
    [
      'two subfolders of one folder',
      {
        'src/cluster/leases/x.ts': file("import { y } from '../routing/y.js';"),
        'src/cluster/routing/y.ts': file("import { x } from '../leases/x.js';"),
      },
    ],
    [
      'a subfolder and another folder',
      {
        'src/turns/wait/x.ts': file("import { y } from '../../errors/y.js';"),
        'src/errors/y.ts': file("import { x } from '../turns/wait/x.js';"),
      },
    ],
  ];
  const cycleRules: string[][] = [['no-folder-cycle'], ['no-folder-cycle'], ['layer-1-imports-above', 'no-folder-cycle']];
  let results: string[][];
  beforeAll(() => {
    const single = ([path, code]: [string, string, string?]): Tree => ({ [path]: file(code) });
    results = violations([...reversed.map(single), ...downward.map(single), ...cycles.map(([, tree]) => tree)]);
  }, 120_000);

  it.each(reversed.map((c, i) => [...c, i] as const))('refuses a reversed import in %s: %s (%s)', (_file, _code, rule, i) => {
    expect(results[i]).toContain(rule);
  });

  it.each(downward.map((c, i) => [...c, reversed.length + i] as const))('allows a downward import in %s: %s', (_file, _code, i) => {
    expect(results[i]).toEqual([]);
  });

  it.each(cycles.map(([name], i) => [name, reversed.length + downward.length + i] as const))('refuses a cycle between %s', (_name, i) => {
    expect(results[i]).toEqual(cycleRules[i - reversed.length - downward.length]);
  });
});
