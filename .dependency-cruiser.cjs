// The architecture as a checked rule (`npm run lint:deps`, part of `npm run lint`): docs/architecture.md#layers.
// Each folder of src/ sits in one layer; a file may import its own layer and those below, never one above, and no two
// folders may import each other around a circle, whatever their layers.
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
const folders = (layers) => `^src/(${layers.flat().join('|')})/`;

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      comment: 'Two folders that import each other, directly or around a loop, are one concern or a missing interface.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...LAYERS.slice(0, -1).map((layer, index) => ({
      name: `layer-${index}-imports-above`,
      comment: `${layer.join(', ')} may not import a higher layer (docs/architecture.md#layers).`,
      severity: 'error',
      from: { path: folders([layer]) },
      to: { path: folders(LAYERS.slice(index + 1)) },
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
      comment: 'Every folder of src/ is declared in a layer above.',
      severity: 'error',
      from: { path: '^src/[^/]+/', pathNot: folders(LAYERS) },
      to: {},
    },
  ],
  options: {
    includeOnly: '^src/',
    exclude: { path: '\\.spec\\.ts$' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
