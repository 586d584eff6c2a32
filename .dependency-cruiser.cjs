// The architecture as a checked rule (`npm run lint:deps`, part of `npm run lint`), declared once here and explained in
// docs/architecture.md#layers. Two views of src/, both checked on every import of shipped code (specs are exempt):
// - folder layers: a folder imports its own layer and those below it, never one above; no folder cycle, whatever the layers;
// - packages (the `exports` subpaths): a package loads only those beneath it, and never an npm package it must load without.
// A subfolder (src/cluster/leases/) sits in its parent's layer and package; its cycles with its parent count too.

/** Folder layers, bottom up. */
const LAYERS = [
  ['common', 'telemetry', 'logging'],
  ['errors', 'validation'],
  ['client-id', 'turns', 'http', 'wire'],
  ['engines', 'acp', 'transcript', 'idempotency', 'events', 'client'],
  ['bridge', 'ledger', 'webhooks', 'permissions', 'sessions', 'rate-limit'],
  ['prompts', 'cluster', 'metrics', 'status'],
  ['runtime', 'testing'],
  ['daemon'],
];

const PLATFORMS = ['@nestjs/platform-[^/]+', 'fastify', '@fastify/[^/]+'];
const NEST = ['@nestjs/[^/]+', 'class-validator', 'class-transformer', 'rxjs', 'reflect-metadata'];
const AGENT_SDK = ['@agentclientprotocol/[^/]+'];
const CLUSTER_PACKAGES = ['ioredis', 'undici'];
// An optional peer: loaded with import() where it is used, never statically.
const TRACING = ['@opentelemetry/[^/]+'];

/**
 * Packages, as the `exports` subpaths ship them: each one's folders, the packages it may load (`loads`), those it may
 * take only types from (`types`) or load only with import() (`dynamic`), and the npm packages it must load without
 * (a static import of one fails; import() and a type-only import do not load it).
 */
const PACKAGES = [
  {
    name: 'root',
    entry: '^src/index\\.ts$',
    folders: ['turns', 'client-id', 'common', 'errors', 'validation', 'wire', 'http', 'telemetry'],
    loads: [],
    without: [...AGENT_SDK, ...PLATFORMS, ...CLUSTER_PACKAGES, 'prom-client', 'pino', ...TRACING],
  },
  // The client runs in browsers too: no Nest, no Node built-ins, and only the root's types.
  {
    name: 'client',
    folders: ['client'],
    loads: [],
    types: ['root'],
    without: [...NEST, ...AGENT_SDK, ...PLATFORMS, ...CLUSTER_PACKAGES, 'prom-client', 'pino', ...TRACING],
  },
  {
    name: 'runtime',
    folders: [
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
      'prompts',
    ],
    loads: ['root'],
    without: [...AGENT_SDK, ...PLATFORMS, ...CLUSTER_PACKAGES, 'prom-client', 'pino', ...TRACING],
  },
  {
    name: 'acp',
    folders: ['acp'],
    loads: ['root', 'runtime'],
    without: [...PLATFORMS, ...CLUSTER_PACKAGES, 'prom-client', 'pino', ...TRACING],
  },
  // Cluster mode: the Redis directory and the forwarding router, on the runtime's ports.
  {
    name: 'cluster',
    folders: ['cluster'],
    loads: ['root', 'runtime'],
    without: [...AGENT_SDK, ...PLATFORMS, 'prom-client', 'pino', ...TRACING],
  },
  // Structured logs (pino) behind Nest's LoggerService: it knows nothing of the runtime. Only the daemon loads it.
  {
    name: 'logging',
    folders: ['logging'],
    loads: ['root'],
    without: [...AGENT_SDK, ...PLATFORMS, ...CLUSTER_PACKAGES, 'prom-client', ...TRACING],
  },
  // Prometheus metrics over the runtime's counters and the telemetry channels. Only the daemon loads it.
  {
    name: 'metrics',
    folders: ['metrics'],
    loads: ['root', 'runtime'],
    without: [...AGENT_SDK, ...PLATFORMS, ...CLUSTER_PACKAGES, 'pino', ...TRACING],
  },
  // The daemon, its status routes and its rate limits load the ACP engine, Fastify and cluster mode only when chosen.
  // The cluster's settings rows are plain data (no Redis client): the configuration reads them without cluster mode.
  {
    name: 'daemon',
    folders: ['daemon', 'status', 'rate-limit'],
    loads: ['root', 'client', 'runtime', 'logging', 'metrics'],
    dynamic: ['acp', 'cluster'],
    dynamicExcept: '^src/cluster/.*\\.settings\\.ts$',
    without: ['@nestjs/platform-fastify', ...AGENT_SDK, ...CLUSTER_PACKAGES, ...TRACING],
  },
  // The testing kit: no package loads it; Fastify and @nestjs/testing (an optional peer) only when a test asks.
  {
    name: 'testing',
    folders: ['testing'],
    loads: ['root', 'runtime'],
    without: ['@nestjs/platform-fastify', '@nestjs/testing', ...AGENT_SDK, ...CLUSTER_PACKAGES, 'prom-client', 'pino', ...TRACING],
  },
];

// nest-turn-status/webhooks/verify: a receiver with no Nest installed loads these runtime files alone.
const WEBHOOK_VERIFY = {
  name: 'webhooks/verify',
  files: ['verify', 'turn-webhook-signature', 'turn-webhook-event', 'webhook-secret'].map((name) => `webhooks/${name}`),
  without: [...NEST, ...AGENT_SDK, ...PLATFORMS, ...CLUSTER_PACKAGES, 'prom-client', 'pino', ...TRACING],
};

const escapeRegExp = (text) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
const folders = (names) => `^src/(${names.map(escapeRegExp).join('|')})/`;
const packageFolders = (names) => PACKAGES.filter((pkg) => names.includes(pkg.name)).flatMap((pkg) => pkg.folders);
// An npm package resolved (under any node_modules, the worktree's link included), or unresolved (an optional peer).
const npm = (names) => [`(^|/)node_modules/(${names.join('|')})/`, `^(${names.join('|')})$`];
const SPEC = '\\.spec\\.ts$';
/** A package's shipped files: its folders', and its entry file outside them (the root's `src/index.ts`). */
const packageFiles = (pkg) => ({ path: [folders(pkg.folders), ...(pkg.entry ? [pkg.entry] : [])], pathNot: SPEC });

/** Each folder in one layer and one package: a folder that is missing from either, or in two, fails at load. */
function checkDeclarations() {
  const layered = LAYERS.flat();
  const packaged = PACKAGES.flatMap((pkg) => pkg.folders);
  const twice = (names) => names.filter((name, index) => names.indexOf(name) !== index);
  const problems = [
    ...twice(layered).map((name) => `${name} is in two folder layers`),
    ...twice(packaged).map((name) => `${name} is in two packages`),
    ...layered.filter((name) => !packaged.includes(name)).map((name) => `${name} has a folder layer but no package`),
    ...packaged.filter((name) => !layered.includes(name)).map((name) => `${name} has a package but no folder layer`),
  ];
  const names = PACKAGES.map((pkg) => pkg.name);
  for (const [index, pkg] of PACKAGES.entries()) {
    for (const below of [...pkg.loads, ...(pkg.types ?? []), ...(pkg.dynamic ?? [])]) {
      const at = names.indexOf(below);
      if (at < 0 || at >= index) problems.push(`${pkg.name} loads ${below}, which is not a package declared before it`);
    }
    // The package order may narrow the folder layers, never reverse them: each package it loads has a folder in a layer
    // this package's highest folder may import.
    const top = Math.max(...pkg.folders.map((name) => LAYERS.findIndex((layer) => layer.includes(name))));
    for (const below of pkg.loads) {
      const bottom = Math.min(...packageFolders([below]).map((name) => LAYERS.findIndex((layer) => layer.includes(name))));
      if (bottom > top) problems.push(`${pkg.name} loads ${below}, whose folders all sit in a higher folder layer`);
    }
  }
  if (problems.length > 0) throw new Error(`.dependency-cruiser.cjs: ${problems.join('; ')}`);
}
checkDeclarations();

const folderRules = [
  {
    name: 'no-folder-cycle',
    comment: 'Two folders that import each other, directly or around a loop, are one concern or a missing interface.',
    severity: 'error',
    scope: 'folder',
    from: { path: '^src/' },
    to: { path: '^src/', circular: true },
  },
  ...LAYERS.slice(0, -1).map((layer, index) => ({
    name: `layer-${index}-imports-above`,
    comment: `${layer.join(', ')} may not import a higher folder layer (docs/architecture.md#layers).`,
    severity: 'error',
    from: { path: folders(layer), pathNot: SPEC },
    to: { path: folders(LAYERS.slice(index + 1).flat()) },
  })),
  {
    name: 'cluster-subfolder-imports-root',
    comment: "cluster/'s subfolders import down only: its root wires them (docs/cluster.md#layout).",
    severity: 'error',
    from: { path: '^src/cluster/[^/]+/' },
    to: { path: '^src/cluster/[^/]+$' },
  },
  {
    name: 'unlayered-folder',
    comment: 'Every folder of src/ is declared in a folder layer and a package above.',
    severity: 'error',
    from: { path: '^src/[^/]+/', pathNot: folders(LAYERS.flat()) },
    to: {},
  },
];

const packageRules = PACKAGES.flatMap((pkg) => {
  const from = packageFiles(pkg);
  const allowed = [pkg.name, ...pkg.loads, ...(pkg.types ?? []), ...(pkg.dynamic ?? [])];
  const above = PACKAGES.filter((other) => !allowed.includes(other.name)).map((other) => other.name);
  return [
    {
      name: `package-${pkg.name}-imports-above`,
      comment: `The ${pkg.name} package may load only ${pkg.loads.join(', ') || 'itself'} (docs/architecture.md#packages).`,
      severity: 'error',
      from,
      to: { path: folders(packageFolders(above)) },
    },
    ...(pkg.types
      ? [
          {
            name: `package-${pkg.name}-takes-types-only`,
            comment: `The ${pkg.name} package may take only types from ${pkg.types.join(', ')}.`,
            severity: 'error',
            from,
            to: { path: folders(packageFolders(pkg.types)), preCompilationOnly: false },
          },
        ]
      : []),
    ...(pkg.dynamic
      ? [
          {
            name: `package-${pkg.name}-loads-when-chosen`,
            comment: `The ${pkg.name} package loads ${pkg.dynamic.join(', ')} with import() only, when chosen.`,
            severity: 'error',
            from,
            to: { path: folders(packageFolders(pkg.dynamic)), pathNot: pkg.dynamicExcept, dynamic: false, preCompilationOnly: false },
          },
        ]
      : []),
  ];
});

const npmRules = [...PACKAGES, WEBHOOK_VERIFY].map((pkg) => ({
  name: `package-${pkg.name.replace('/', '-')}-loads-without`,
  comment: `The ${pkg.name} package must load without this npm package installed: import() it where it is chosen.`,
  severity: 'error',
  from: pkg.files ? { path: `^src/(${pkg.files.join('|')})\\.ts$` } : packageFiles(pkg),
  to: { path: npm(pkg.without), dynamic: false, preCompilationOnly: false },
}));

// The client must not load a Node built-in either.
const clientBuiltins = {
  name: 'package-client-no-node-builtin',
  comment: 'The client runs in browsers: no Node built-in.',
  severity: 'error',
  from: { path: folders(['client']), pathNot: SPEC },
  to: { dependencyTypes: ['core'] },
};
// webhooks/verify takes only the root's types, like the client.
const verifyTypesOnly = {
  name: 'package-webhooks-verify-takes-types-only',
  comment: 'nest-turn-status/webhooks/verify may take only types from the root.',
  severity: 'error',
  from: { path: `^src/(${WEBHOOK_VERIFY.files.join('|')})\\.ts$` },
  to: { path: folders(packageFolders(['root'])), preCompilationOnly: false },
};

module.exports = {
  forbidden: [...folderRules, ...packageRules, ...npmRules, clientBuiltins, verifyTypesOnly],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: SPEC },
    tsConfig: { fileName: 'tsconfig.json' },
    // 'specify' keeps type-only imports in the graph and marks them, for the types-only rules.
    tsPreCompilationDeps: 'specify',
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
