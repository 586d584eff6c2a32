// Lint, and the package's layering: each layer (an `exports` subpath) may
// import only the layers above it —
//   root (turns, client-id, common, errors, validation, wire, http, telemetry) → client → runtime (with idempotency/, webhooks/) → acp → cluster → daemon
// (webhooks/verify, the Nest-free receiver, takes only types from the root),
// (metrics and logging sit under the daemon, which alone mounts them), and the
// root loads no agent SDK, no HTTP platform, no prom-client, pino or OpenTelemetry.
// The testing kit sits beside the daemon (root and runtime only), and nothing shipped imports it. Specs are exempt from
// the layering (they never ship); a reversed import in shipped code fails CI.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const PLATFORMS = ['@nestjs/platform-*', 'fastify', '@fastify/*'];
const CLUSTER_PACKAGES = ['ioredis', 'undici'];
// The daemon's own dependencies for metrics and logs: only its layers load them.
const OPERATIONS_PACKAGES = ['prom-client', 'pino'];
// An optional peer, loaded with import() where it is used; never a static import.
const TRACING_PACKAGES = ['@opentelemetry/*'];
const folders = (...names) => names.map((name) => `**/${name}/**`);
/** The runtime layer's folders (`nest-turn-status/runtime`). */
const RUNTIME_FOLDERS = [
  'runtime',
  'bridge',
  'sessions',
  'transcript',
  'ledger',
  'events',
  'engines',
  'idempotency',
  'webhooks',
  'permissions',
];

/** One layer: its files, the folders and packages it must not import. */
const LAYERS = [
  {
    name: 'root',
    files: [
      'src/index.ts',
      'src/turns/**/*.ts',
      'src/client-id/**/*.ts',
      'src/common/**/*.ts',
      'src/errors/**/*.ts',
      'src/validation/**/*.ts',
      'src/wire/**/*.ts',
      'src/http/**/*.ts',
      'src/telemetry/**/*.ts',
    ],
    folders: folders(...RUNTIME_FOLDERS, 'acp', 'cluster', 'daemon', 'client', 'status', 'metrics', 'logging', 'testing'),
    packages: ['@agentclientprotocol/*', ...PLATFORMS, ...CLUSTER_PACKAGES, ...OPERATIONS_PACKAGES, ...TRACING_PACKAGES],
  },
  // The client runs in browsers too: no Nest, no Node built-ins, and only the root's types.
  {
    name: 'client',
    files: ['src/client/**/*.ts'],
    folders: folders(...RUNTIME_FOLDERS, 'acp', 'cluster', 'daemon', 'client-id', 'testing'),
    packages: [
      '@nestjs/*',
      'class-validator',
      'class-transformer',
      'rxjs',
      'reflect-metadata',
      'node:*',
      '@agentclientprotocol/*',
      ...PLATFORMS,
      ...CLUSTER_PACKAGES,
    ],
    typesOnly: '(^|/)(turns|common|errors|validation|wire|http)/',
  },
  {
    name: 'runtime',
    files: RUNTIME_FOLDERS.map((name) => `src/${name}/**/*.ts`),
    folders: folders('acp', 'cluster', 'daemon', 'client', 'status', 'metrics', 'logging', 'testing'),
    packages: ['@agentclientprotocol/*', ...PLATFORMS, ...CLUSTER_PACKAGES, ...OPERATIONS_PACKAGES, ...TRACING_PACKAGES],
  },
  // nest-turn-status/webhooks/verify: a receiver with no Nest installed loads these files alone (a later block wins, so
  // the runtime's restrictions are repeated).
  {
    name: 'webhooks/verify',
    files: [
      'src/webhooks/verify.ts',
      'src/webhooks/turn-webhook-signature.ts',
      'src/webhooks/turn-webhook-event.ts',
      'src/webhooks/webhook-secret.ts',
    ],
    folders: folders('acp', 'cluster', 'daemon', 'client', 'status', 'metrics', 'logging', 'testing'),
    packages: [
      '@nestjs/*',
      'class-validator',
      'class-transformer',
      'rxjs',
      'reflect-metadata',
      '@agentclientprotocol/*',
      ...PLATFORMS,
      ...CLUSTER_PACKAGES,
      ...OPERATIONS_PACKAGES,
      ...TRACING_PACKAGES,
    ],
    typesOnly: '(^|/)(turns|common|errors|validation|wire|http)/',
  },
  {
    name: 'acp',
    files: ['src/acp/**/*.ts'],
    folders: folders('cluster', 'daemon', 'client', 'status', 'metrics', 'logging', 'testing'),
    packages: [...PLATFORMS, ...CLUSTER_PACKAGES, ...OPERATIONS_PACKAGES, ...TRACING_PACKAGES],
  },
  // Cluster mode: the Redis directory and the forwarding router, on top of the runtime's ports.
  {
    name: 'cluster',
    files: ['src/cluster/**/*.ts'],
    folders: folders('acp', 'daemon', 'client', 'status', 'metrics', 'logging', 'testing'),
    packages: ['@agentclientprotocol/*', ...PLATFORMS, ...OPERATIONS_PACKAGES, ...TRACING_PACKAGES],
  },
  // Prometheus metrics (prom-client) over the runtime's counters and the telemetry channels; the daemon mounts them.
  {
    name: 'metrics',
    files: ['src/metrics/**/*.ts'],
    folders: folders('acp', 'cluster', 'daemon', 'client', 'status', 'logging', 'testing'),
    packages: ['@agentclientprotocol/*', ...PLATFORMS, ...CLUSTER_PACKAGES, 'pino', ...TRACING_PACKAGES],
  },
  // Structured logs (pino) behind Nest's LoggerService; knows nothing of the runtime.
  {
    name: 'logging',
    files: ['src/logging/**/*.ts'],
    folders: folders(...RUNTIME_FOLDERS, 'acp', 'cluster', 'daemon', 'client', 'status', 'metrics', 'testing'),
    packages: ['@agentclientprotocol/*', ...PLATFORMS, ...CLUSTER_PACKAGES, 'prom-client', ...TRACING_PACKAGES],
  },
  // The daemon (with its status routes and its rate limits) loads the ACP engine, the Fastify platform and cluster mode only when chosen: dynamic import() only.
  {
    name: 'daemon',
    files: ['src/daemon/**/*.ts', 'src/status/**/*.ts', 'src/rate-limit/**/*.ts'],
    // The cluster's settings rows are plain data (no Redis client): the configuration reads them without cluster mode.
    folders: [...folders('acp', 'cluster', 'testing'), '!**/cluster/node', '**/cluster/node/*', '!**/cluster/node/cluster.settings.js'],
    packages: ['@nestjs/platform-fastify', '@agentclientprotocol/*', ...CLUSTER_PACKAGES, ...TRACING_PACKAGES],
  },
  // The testing kit (nest-turn-status/testing): the root's ports in memory, a scripted engine for the
  // runtime, an app builder. No layer imports it; Fastify (and @nestjs/testing) only when a test asks for it.
  {
    name: 'testing',
    files: ['src/testing/**/*.ts'],
    folders: folders('acp', 'cluster', 'daemon', 'client', 'status', 'metrics', 'logging'),
    // @nestjs/testing only to replace a host's ports, an optional peer.
    packages: [
      '@nestjs/platform-fastify',
      '@nestjs/testing',
      '@agentclientprotocol/*',
      ...CLUSTER_PACKAGES,
      ...OPERATIONS_PACKAGES,
      ...TRACING_PACKAGES,
    ],
  },
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '.turns-data/**',
      '.chaos/**',
      '.test-dist/**',
      'packages/*/dist/**',
      '.dist-next-*/**',
      '.dist-old-*/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      // Abstract classes used as injection tokens are declared and implemented as classes.
      '@typescript-eslint/no-extraneous-class': 'off',
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  ...LAYERS.map((layer) => ({
    files: layer.files,
    ignores: ['**/*.spec.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: layer.folders,
              message: `The ${layer.name} layer may import only the layers above it (root → client → runtime → acp → cluster → daemon).`,
            },
            {
              group: layer.packages,
              message: `The ${layer.name} layer must load without this package installed (load it dynamically where it is chosen).`,
            },
            ...(layer.typesOnly
              ? [{ regex: layer.typesOnly, allowTypeImports: true, message: `The ${layer.name} layer may take only types from the root.` }]
              : []),
          ],
        },
      ],
    },
  })),
);
