import { describe, expect, it } from 'vitest';
import { eventually } from '../../support/waitFor';

describe('eventually', () => {
  it('resolves with the first truthy value the probe returns', async () => {
    let n = 0;
    await expect(eventually('three calls', () => (++n >= 3 ? n : undefined), { intervalMs: 1 })).resolves.toBe(3);
  });

  it('awaits an async probe', async () => {
    await expect(eventually('async value', async () => 'ok', { intervalMs: 1 })).resolves.toBe('ok');
  });

  it('times out with what it waited for and the detail', async () => {
    await expect(eventually('the moon', () => false, { timeoutMs: 50, intervalMs: 5, detail: () => 'log tail' })).rejects.toThrow(
      'timed out after 50 ms waiting for the moon\nlog tail',
    );
  });

  it('names the last error a probe threw when it times out', async () => {
    await expect(eventually('a server', () => { throw new Error('ECONNREFUSED'); }, { timeoutMs: 50, intervalMs: 5 })).rejects.toThrow(
      'timed out after 50 ms waiting for a server: ECONNREFUSED',
    );
  });

  it('retries a probe that throws and then succeeds', async () => {
    let n = 0;
    const probe = () => {
      if (++n < 3) throw new Error('not yet');
      return 'up';
    };
    await expect(eventually('recovery', probe, { intervalMs: 1 })).resolves.toBe('up');
  });
});
