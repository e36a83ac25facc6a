/* global module */
// The layers of lib/, bottom first, and the rules that keep them (`npm run lint:layers`, part of
// `npm run lint` and so of the test command). A module may import from its own layer and the ones
// below it, never from one above; no import cycle, anywhere in lib/, type-only imports included.
// ARCHITECTURE.md draws the same picture: change both together.
const LAYERS = [
  {
    name: 'foundation',
    why: 'names, formats and types shared by the compiler, the reconciler and the CLI',
    path: [
      'lib/(names|model|diagnostics|plural|duration|quantity|colour|yaml|crds|antrea-releases|reconciler-config|kubeconfig|install-source|source-locations|policy|digest|git-url)[.]ts$',
    ],
  },
  {
    name: 'front',
    why: 'load, plan and check the model',
    path: ['lib/(load|plan|antrea-member-config)[.]ts$', 'lib/check/'],
  },
  { name: 'render', why: 'objects per cluster from the plan', path: ['lib/render/'] },
  {
    name: 'compile',
    why: 'validate and emit: the whole pure compiler',
    path: ['lib/(validate|emit|compile)[.]ts$'],
  },
  { name: 'fs', why: 'the filesystem edge: out/ written as a transaction', path: ['lib/fs/'] },
  { name: 'synth', why: 'compile + write, with its cache', path: ['lib/synth[.]ts$'] },
  {
    name: 'reconciler',
    why: 'what runs from the image: pure core, watch/patch edge',
    path: ['lib/reconciler/'],
  },
  { name: 'explain', why: 'pure reports over the plan', path: ['lib/explain/'] },
  { name: 'status', why: 'what is live, against out/', path: ['lib/status/'] },
  {
    name: 'readers',
    why: 'diff of two out/ trees; import of a live ClusterSet',
    path: ['lib/diff/', 'lib/import/'],
  },
  { name: 'commands', why: 'token and init, each one command of its own', path: ['lib/(token|init)[.]ts$'] },
  { name: 'cli', why: 'the command line and the public API, the top', path: ['lib/cli/', 'lib/index[.]ts$'] },
];

const above = (i) => LAYERS.slice(i + 1).flatMap((l) => l.path);

module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'An import cycle in lib/: give the name or type the two sides share a home below both.',
      from: { path: '^lib/' },
      to: { circular: true },
    },
    {
      name: 'no-unlayered-module',
      severity: 'error',
      comment: 'Every file of lib/ belongs to one layer of .dependency-cruiser.cjs: add it to the right one.',
      from: { path: '^lib/', pathNot: LAYERS.flatMap((l) => l.path) },
      to: {},
    },
    ...LAYERS.slice(0, -1).map((layer, i) => ({
      name: `${layer.name}-imports-above`,
      severity: 'error',
      comment:
        `The ${layer.name} layer (${layer.why}) imports from a layer above it. ` +
        'Move what both need below both (lib/names.ts and the like), or move the importer up.',
      from: { path: layer.path },
      to: { path: above(i) },
    })),
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    includeOnly: '^lib/',
    exclude: { path: '[.]d[.]ts$' },
    doNotFollow: { path: 'node_modules' },
  },
};
