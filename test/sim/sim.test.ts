import { describe, expect, it } from 'vitest';
import { runSimulation } from './simulation';

// SIM_SEED=S replays one seed; SIM_SEEDS=N runs N seeds (default 1000) from
// SIM_FIRST_SEED (default 1); SIM_ROUNDS sets the chaos rounds per seed.
const replay = process.env.SIM_SEED ? [Number(process.env.SIM_SEED)] : undefined;
const count = Number(process.env.SIM_SEEDS ?? 1000);
const first = Number(process.env.SIM_FIRST_SEED ?? 1);
const rounds = Number(process.env.SIM_ROUNDS ?? 1200);
const seeds = replay ?? Array.from({ length: count }, (_, i) => first + i);

// Liveness allows 300 ticks (≈ 20 election timeouts) after healing: with four
// voters of which two hold stale logs, each election is a coin flip between a
// candidate that can win and one that cannot, and every lost election resets
// the others' timers.
const LIVENESS_TICKS = 300;

describe('raft simulation', () => {
  it(`keeps safety and liveness over ${seeds.length} seeded runs`, { timeout: 600_000 }, () => {
    let commits = 0;
    for (const seed of seeds) {
      const res = runSimulation({ seed, size: seed % 3 === 0 ? 5 : 3, chaosRounds: rounds, livenessTicks: LIVENESS_TICKS });
      commits += res.committed;
    }
    // Every run committed something beyond its bootstrap entries.
    expect(commits).toBeGreaterThan(seeds.length * 5);
  });
});
