// Nest 12 ships ESM only; Jest on Node 20 cannot require ESM, so swc transpiles both our
// TypeScript and the @nestjs packages to CommonJS (see ../shared/TOOLCHAIN.md).
const swcTs = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
  },
  module: { type: 'commonjs' },
};
const swcJs = {
  jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' },
  module: { type: 'commonjs' },
};

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testRegex: '\\.(spec|e2e-spec)\\.ts$',
  transform: {
    '^.+\\.ts$': ['@swc/jest', swcTs],
    '^.+\\.(js|mjs)$': ['@swc/jest', swcJs],
  },
  // ESM-only packages that Jest must see as CommonJS: Nest itself, and content-disposition
  // (required by @fastify/static, which serves the /docs page).
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|content-disposition)/)'],
  testTimeout: 60000,
};
