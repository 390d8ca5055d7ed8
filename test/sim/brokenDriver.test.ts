import { describe, expect, it } from 'vitest';
import { runSimulation } from './simulation';

// The simulation must be able to fail: a driver that sends a Ready's messages
// before its writes are durable loses acknowledged state in a crash, and the
// run has to notice — through a checker violation or a core panic.
describe('simulation with a driver that breaks persist-before-send', () => {
  it('reports a failing seed with its replay command and trace', () => {
    let failure: Error | undefined;
    for (let seed = 1; seed <= 60 && !failure; seed++) {
      try {
        runSimulation({ seed, size: 3, chaosRounds: 600, livenessTicks: 120, brokenPersistence: true });
      } catch (err) {
        failure = err as Error;
      }
    }
    expect(failure).toBeDefined();
    expect(failure!.message).toMatch(/^seed \d+ \(size 3\) failed at round \d+/);
    expect(failure!.message).toMatch(/replay: SIM_SEED=\d+ npx vitest run test\/sim/);
    expect(failure!.message.split('\n').filter((l) => /^\s+r\s*\d+ /.test(l)).length).toBe(50);
  });

  it('some seed shows a safety checker violation (not only a core panic), and a correct driver passes it', () => {
    let violation: { seed: number; message: string } | undefined;
    for (let seed = 1; seed <= 400 && !violation; seed++) {
      try {
        runSimulation({ seed, size: 3, chaosRounds: 600, livenessTicks: 120, brokenPersistence: true });
      } catch (err) {
        const first = (err as Error).message.split('\n')[0]!;
        if (/log matching|election safety|leader completeness|state-machine safety|linearizable read/.test(first)) {
          violation = { seed, message: first };
        }
      }
    }
    expect(violation).toBeDefined();
    expect(runSimulation({ seed: violation!.seed, size: 3, chaosRounds: 600, livenessTicks: 120 }).committed).toBeGreaterThan(10);
  });
});
