// Jest runs the ESM sources (and the ESM-only @nestjs / @agentclientprotocol
// packages) by letting SWC turn them into CommonJS; the build itself stays ESM.
const swc = (syntax) => [
  '@swc/jest',
  {
    jsc: {
      parser: syntax === 'typescript' ? { syntax: 'typescript', decorators: true } : { syntax: 'ecmascript' },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];

module.exports = {
  // The Node environment, failing a file that leaves a FileHandle open (test/support/file-handle-environment.cjs).
  testEnvironment: '<rootDir>/test/support/file-handle-environment.cjs',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts'],
  // The host apps' own suites run inside those apps (test/package/host-apps.e2e-spec.ts).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/package/hosts/'],
  transform: {
    '^.+\\.ts$': swc('typescript'),
    '^.+\\.m?js$': swc('ecmascript'),
  },
  // content-disposition (under @fastify/static, used for Swagger UI on Fastify) is ESM-only too.
  transformIgnorePatterns: [
    'node_modules/(?!(@nestjs|@agentclientprotocol|content-disposition|@fastify/static/node_modules/content-disposition)/)',
  ],
  // docs/examples import the package by name, as a host does.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1', '^nest-turn-status$': '<rootDir>/src/index.ts' },
  testTimeout: 20000,
  // Jest's default is one worker fewer than the cores (1 on a 2-core machine); the e2e specs mostly wait on child
  // processes, sockets, Chromium and npm, so more workers than cores pay (docs/development.md#the-suites-time).
  maxWorkers: 3,
  setupFiles: ['<rootDir>/jest.setup.cjs'],
  reporters: ['default', '<rootDir>/test/support/summary-reporter.cjs'],
};
