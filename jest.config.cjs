// Jest runs the ESM sources (and the ESM-only @nestjs / @agentclientprotocol
// packages) by letting SWC turn them into CommonJS; the build itself stays ESM.
const swc = (syntax) => [
  '@swc/jest',
  {
    jsc: {
      parser: syntax === 'typescript'
        ? { syntax: 'typescript', decorators: true }
        : { syntax: 'ecmascript' },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts'],
  transform: {
    '^.+\\.ts$': swc('typescript'),
    '^.+\\.m?js$': swc('ecmascript'),
  },
  transformIgnorePatterns: ['node_modules/(?!(@nestjs|@agentclientprotocol)/)'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testTimeout: 20000,
};
