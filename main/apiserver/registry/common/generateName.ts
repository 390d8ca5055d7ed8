// metadata.generateName → name, as k8s.io/apiserver's names.SimpleNameGenerator:
// the base cut to 58 characters plus 5 random characters from
// utilrand's alphabet (no vowels, no confusable digits, so no words appear).

import { randomInt } from 'node:crypto';

export const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const maxNameLength = 63;
const randomLength = 5;
const maxGeneratedNameLength = maxNameLength - randomLength;

export function randomSuffix(n = randomLength): string {
  let s = '';
  for (let i = 0; i < n; i++) s += GENERATE_ALPHABET[randomInt(GENERATE_ALPHABET.length)];
  return s;
}

export function generateName(base: string): string {
  const cut = base.length > maxGeneratedNameLength ? base.slice(0, maxGeneratedNameLength) : base;
  return cut + randomSuffix();
}
