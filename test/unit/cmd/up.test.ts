import { describe, expect, it } from 'vitest';
import { exitLine } from '../../../main/cmd/up';

describe('up: the line for an exit', () => {
  const log = '/d/logs/apiserver.log';
  it('a kill -9, restarted after the backoff', () => {
    expect(exitLine('apiserver', null, 'SIGKILL', { action: 'restart', delayMs: 250, attempt: 1 }, log)).toBe('apiserver exited (signal SIGKILL); restarting in 250 ms (attempt 1)');
  });
  it('an exit code, a later attempt', () => {
    expect(exitLine('m2', 1, null, { action: 'restart', delayMs: 2000, attempt: 4 }, log)).toBe('m2 exited (code 1); restarting in 2000 ms (attempt 4)');
  });
  it('giving up names the log', () => {
    expect(exitLine('controllers', 1, null, { action: 'give-up', crashes: 6 }, log)).toBe(`controllers exited (code 1); it exited 6 times within 60 s, giving up on it; see ${log}`);
  });
  it('nothing for an asked-for stop', () => {
    expect(exitLine('m1', 0, null, undefined, log)).toBeUndefined();
  });
});
