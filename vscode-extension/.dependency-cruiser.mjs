// dependency-cruiser's rules for src/ (`npm run lint`, so `make lint` and CI): no import
// circle between the extension's modules. Type-only imports count (`tsPreCompilationDeps`):
// a circle through `import type` still ties the modules together, and ESLint's
// import/no-cycle (eslint-plugin-import, eslint-plugin-import-x) skips those imports.
// A module that needs one of its users names a small interface of its own instead.
// test/unit/importCycles.test.ts runs this config over planted circles.
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'This module is part of an import circle. Break it: let the module that uses the other ' +
        'own a small interface of what it needs, or move the shared constant beside its kind.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
  },
};
