// Step delays of the simulated kubelet: delay ± jitter, uniform, from an
// injected random source, never negative.

export function jittered(delayMs: number, jitterMs: number, random: () => number): number {
  return Math.max(0, Math.round(delayMs + (random() * 2 - 1) * jitterMs));
}
