// Golden Raft interaction traces (etcd-io/raft's rafttest datadriven tests):
// every testdata/*.txt script (not those in testdata/expect/, which
// interaction.test.ts runs) runs as its own test against a fresh
// InteractionEnv; each command's output must equal the text under its `----`.
// Commands are listed at the top of interaction/handlers.ts.
//
// To regenerate the expected output after a deliberate behaviour change, run
//   RAFT_REWRITE=1 npx vitest run test/unit/etcd/raft/interaction
// and read the resulting diff critically before committing it.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFile } from '../../../../support/datadriven';
import { InteractionEnv } from './env';
import { handle } from './handlers';

const dir = join(import.meta.dirname, '..', 'testdata');
const rewrite = process.env.RAFT_REWRITE === '1';
const files = readdirSync(dir).filter((f) => f.endsWith('.txt'));

describe('raft interaction traces', () => {
  it('has at least 20 scripts', () => expect(files.length).toBeGreaterThanOrEqual(20));
  it.each(files)('%s', (f) => {
    const env = new InteractionEnv();
    const failures = runFile(join(dir, f), (tc) => handle(env, tc), rewrite);
    expect(failures, failures.join('\n\n')).toEqual([]);
  });
});
