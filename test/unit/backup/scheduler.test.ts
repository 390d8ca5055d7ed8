import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BackupScheduler } from '../../../main/backup/scheduler';

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(new Date(2026, 11, 3, 10, 0, 0));
});
afterEach(() => vi.useRealTimers());

describe('backup scheduler', () => {
  it('runs one backup per tick, skips ticks a long backup overran, and goes on after a failure', async () => {
    const ticks: string[] = [];
    let release: (() => void) | undefined;
    const s = new BackupScheduler({
      schedule: '@every 10s',
      tick: async (at) => {
        ticks.push(at.toTimeString().slice(0, 8));
        if (ticks.length === 2) await new Promise<void>((r) => (release = r)); // a slow backup
        if (ticks.length === 3) throw new Error('disk full');
      },
    });
    s.start();
    expect(s.next?.toTimeString().slice(0, 8)).toBe('10:00:10');
    await vi.advanceTimersByTimeAsync(10_000);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(ticks).toEqual(['10:00:10', '10:00:20']);
    await vi.advanceTimersByTimeAsync(25_000); // the slow backup runs till 10:00:45
    expect(ticks).toHaveLength(2);
    release!();
    await vi.advanceTimersByTimeAsync(0);
    expect(s.next?.toTimeString().slice(0, 8)).toBe('10:00:55');
    await vi.advanceTimersByTimeAsync(10_000); // fails
    await vi.advanceTimersByTimeAsync(10_000); // and the next runs anyway
    expect(ticks).toEqual(['10:00:10', '10:00:20', '10:00:55', '10:01:05']);
    await s.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ticks).toHaveLength(4);
  });

  it('refuses a bad schedule at once', () => {
    expect(() => new BackupScheduler({ schedule: '0 */12 * *', tick: async () => undefined })).toThrow('expected 5 fields');
  });
});
