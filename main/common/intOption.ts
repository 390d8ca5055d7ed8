// A commander option parser for a whole number within bounds, with the one
// error message every `pilothouse` subcommand gives for a bad value.

import { InvalidArgumentError } from 'commander';

export function intOption(name: string, min: number, max: number): (value: string) => number {
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max) throw new InvalidArgumentError(`${name} must be an integer in ${min}..${max}`);
    return n;
  };
}
