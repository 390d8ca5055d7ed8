// The layering rules in .dependency-cruiser.cjs (npm run deps), run on a small
// tree in test/fixtures/layers that breaks each rule once and makes two
// imports the rules allow: a rule that silently stopped matching would let
// npm run deps pass over the real tree, so each must fire here, and only
// where it should.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { beforeAll, describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const fixtureRoot = path.join(repoRoot, 'test/fixtures/layers');

/** Cruises the fixture tree as npm run deps cruises the repo: same config, same folders. */
async function cruiseFixture(): Promise<ICruiseResult> {
  const options = await extractDepcruiseOptions(path.join(repoRoot, '.dependency-cruiser.cjs'));
  const tsConfig = extractTSConfig(path.join(repoRoot, options.tsConfig?.fileName ?? 'tsconfig.json'));
  const result = await cruise(['main', 'preload', 'renderer'], { ...options, baseDir: fixtureRoot, outputType: 'json' }, {}, { tsConfig });
  return typeof result.output === 'string' ? (JSON.parse(result.output) as ICruiseResult) : result.output;
}

describe('layer rules', () => {
  let result: ICruiseResult;
  beforeAll(async () => {
    result = await cruiseFixture();
  });

  it('cruises the whole fixture tree', () => {
    expect(result.modules.map((m) => m.source).sort()).toEqual([
      'main/apiserver/d.ts',
      'main/console/c.ts',
      'main/console/e.ts',
      'main/controllers/g.ts',
      'main/etcd/raft/x.ts',
      'main/etcd/snapshot/index.ts',
      'main/etcd/wal/y.ts',
      'main/left/l1.ts',
      'main/left/l2.ts',
      'main/right/r1.ts',
      'main/right/r2.ts',
      'main/ring/p.ts',
      'main/ring/q.ts',
      'main/something.ts',
      'preload/contract.ts',
      'renderer/a.ts',
      'renderer/b.ts',
    ]);
  });

  it('fires exactly the rules the fixture breaks', () => {
    const fired = result.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }));
    const sortKey = (v: { rule: string; from: string; to: string }) => `${v.rule} ${v.from} ${v.to}`;
    expect(fired.sort((a, b) => sortKey(a).localeCompare(sortKey(b)))).toEqual([
      // The console may read the API server only through main/client.
      { rule: 'console-uses-clients', from: 'main/console/c.ts', to: 'main/apiserver/d.ts' },
      { rule: 'controllers-use-clients', from: 'main/controllers/g.ts', to: 'main/apiserver/d.ts' },
      // main/left/l1 → main/right/r2 and main/right/r1 → main/left/l2: no module cycle, but the folders cycle.
      { rule: 'no-folder-cycles', from: 'main/left', to: 'main/right' },
      { rule: 'no-folder-cycles', from: 'main/right', to: 'main/left' },
      // main/ring/p ↔ main/ring/q: one folder, so only the module rule.
      { rule: 'no-module-cycles', from: 'main/ring/p.ts', to: 'main/ring/q.ts' },
      { rule: 'raft-is-pure', from: 'main/etcd/raft/x.ts', to: 'main/etcd/wal/y.ts' },
      { rule: 'renderer-through-contract', from: 'renderer/a.ts', to: 'main/something.ts' },
    ]);
  });

  const allowed = [
    { name: 'the console may use the snapshot library', from: 'main/console/e.ts', to: 'main/etcd/snapshot/index.ts' },
    { name: 'the renderer may import the preload contract', from: 'renderer/b.ts', to: 'preload/contract.ts' },
  ];
  for (const { name, from, to } of allowed) {
    it(`allows it: ${name}`, () => {
      const module = result.modules.find((m) => m.source === from);
      const dependency = module?.dependencies.find((d) => d.resolved === to);
      expect(dependency, `${from} imports ${to}`).toBeDefined();
      expect(dependency?.valid).toBe(true);
      expect(module?.valid).toBe(true);
    });
  }
});
