import { vi } from 'vitest';

export interface EventuallyOptions {
  /** How long to keep probing; 10 s unless given. */
  timeoutMs?: number;
  /** Pause between probes; 50 ms unless given. */
  intervalMs?: number;
  /** Appended to the timeout error, e.g. a log tail, so a failed wait says what the system was doing. */
  detail?: () => string;
}

/**
 * Calls probe until it returns a truthy value and resolves with that value.
 * A probe that throws counts as "not yet"; on timeout the error names `what`,
 * adds detail() and the message of the last error the probe threw.
 */
export async function eventually<T>(
  what: string,
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  opts: EventuallyOptions = {},
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  let last: unknown;
  return vi.waitFor(
    async () => {
      let v: T | undefined | null | false;
      try {
        v = await probe();
        last = undefined;
      } catch (e) {
        last = e;
      }
      if (v) return v;
      const thrown = last === undefined ? '' : `: ${last instanceof Error ? last.message : String(last)}`;
      const detail = opts.detail ? `\n${opts.detail()}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${thrown}${detail}`);
    },
    { timeout: timeoutMs, interval: opts.intervalMs ?? 50 },
  );
}
