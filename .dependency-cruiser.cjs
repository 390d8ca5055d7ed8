// The layering rules `npm test` enforces (npm run deps). Each rule says which
// imports would tie two parts of the product together that must stay apart.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      severity: 'error',
      comment: 'Two folders that import each other are one concept split in two, or a shared type without a home.',
      scope: 'folder',
      from: { path: '^(main|preload|renderer)/' },
      to: { circular: true },
    },
    {
      name: 'no-module-cycles',
      severity: 'error',
      comment: 'Two modules that import each other cannot be read, tested or moved alone. The Raft state machine is the exception: its step handlers are methods of one class kept in several files.',
      from: { path: '^(main|preload|renderer)/', pathNot: '^main/etcd/raft/' },
      to: { circular: true },
    },
    {
      name: 'raft-is-pure',
      severity: 'error',
      comment: 'The Raft core is a state machine: no server, WAL or MVCC.',
      from: { path: '^main/etcd/raft/' },
      to: { path: '^main/etcd/(server|wal|mvcc)/' },
    },
    {
      name: 'controllers-use-clients',
      severity: 'error',
      comment: 'The controllers talk to the API server through main/client and main/kube, never through server internals.',
      from: { path: '^main/controllers/' },
      to: { path: '^main/(etcd|apiserver|console|controlplane|app|web)/' },
    },
    {
      name: 'console-uses-clients',
      severity: 'error',
      comment: 'The console reads clusters through main/client and main/kube; of the servers it may use only the snapshot library.',
      from: { path: '^main/console/' },
      to: { path: '^main/(etcd|apiserver|controllers)/', pathNot: '^main/etcd/snapshot/index\\.ts$' },
    },
    {
      name: 'renderer-through-contract',
      severity: 'error',
      comment: 'The renderer sees the main process only through the preload contract.',
      from: { path: '^renderer/' },
      to: { pathNot: '^(renderer/|preload/contract\\.ts$|node_modules/)' , dependencyTypesNot: ['core'] },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      from: { path: '^(main|preload|renderer)/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(out|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js', '.vue', '.json', '.mjs'] },
  },
};
