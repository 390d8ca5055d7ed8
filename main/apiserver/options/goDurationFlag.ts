// Go durations on kube-apiserver's flags, parsed as time.ParseDuration does
// and refused with its messages (`time: unknown unit "d" in duration "1d"`).

import { InvalidArgumentError } from 'commander';
import { parseGoDurationStrict } from '../../common/goDuration';

/** time.ParseDuration in milliseconds; throws an Error with Go's message. */
export function goDurationMs(text: string): number {
  const ms = parseGoDurationStrict(text);
  if (typeof ms === 'string') throw new Error(ms);
  return ms;
}

/** A commander parser for a duration flag: whole milliseconds, or commander's invalid-argument error with Go's message. */
export function goDurationMsOption(text: string): number {
  try {
    return Math.round(goDurationMs(text));
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}
