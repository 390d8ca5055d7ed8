import { describe, expect, it } from 'vitest';
import { runSimulation } from './simulation';

// SIM_SEED=S replays one seed; SIM_SEEDS=N runs N seeds (default 1000).
const replay = process.env.SIM_SEED ? [Number(process.env.SIM_SEED)] : undefined;
const count = Number(process.env.SIM_SEEDS ?? 1000);
const rounds = Number(process.env.SIM_ROUNDS ?? 600);
const seeds = replay ?? Array.from({ length: count }, (_, i) => i + 1);

describe('raft simulation', () => {
  it(`keeps safety and liveness over ${seeds.length} seeded runs`, { timeout: 600_000 }, () => {
    let commits = 0;
    for (const seed of seeds) {
      const res = runSimulation({ seed, size: seed % 3 === 0 ? 5 : 3, chaosRounds: rounds, livenessTicks: 120 });
      commits += res.committed;
    }
    // Every run committed something beyond its bootstrap entries.
    expect(commits).toBeGreaterThan(seeds.length * 5);
  });
});
