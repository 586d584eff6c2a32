// Lints the daemon's OpenAPI document with Redocly's recommended ruleset.
//   node scripts/openapi-lint.mjs [document.json]
// Without an argument it builds the document from dist/ (run `npm run build` first).
// Prints one line per problem and a summary; exits 1 when there is an error.
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';

async function documentFromDist() {
  process.env.TURNS_LOG = 'silent';
  const { createApp } = await import('../dist/daemon/index.js');
  const { buildOpenApiDocument } = await import('../dist/daemon/openapi.js');
  const dir = mkdtempSync(join(tmpdir(), 'turns-openapi-'));
  const config = {
    host: '127.0.0.1',
    port: 0,
    dataDir: dir,
    workspaces: [dir],
    agent: 'echo',
    maxPendingPrompts: 5,
    chatRecording: false,
    httpAdapter: 'express',
    echoDelayMs: 0,
  };
  const app = await createApp(config);
  await app.init();
  try {
    return JSON.stringify(buildOpenApiDocument(app));
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const source = process.argv[2] ? readFileSync(process.argv[2], 'utf8') : await documentFromDist();
const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config: await createConfig({ extends: ['recommended'] }) });
for (const p of problems) console.log(`${p.severity} ${p.ruleId}: ${p.message} (${p.location?.[0]?.pointer ?? ''})`);
const count = (severity) => problems.filter((p) => p.severity === severity).length;
console.log(`openapi lint: ${count('error')} errors, ${count('warn')} warnings`);
process.exit(count('error') > 0 ? 1 : 0);
