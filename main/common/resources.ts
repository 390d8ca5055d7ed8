import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

// Code runs from three places: the sources (vitest), out/main/*.js and
// out/main/chunks/*.js (the build). Each finds the shipped resources/ folder
// by walking up to the directory that holds it.
let cached: string | undefined;

export function resourcesDir(): string {
  if (cached) return cached;
  let dir = import.meta.dirname;
  for (let i = 0; i < 8; i++) {
    const candidate = join(dir, 'resources');
    if (existsSync(join(candidate, 'proto'))) return (cached = candidate);
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(`resources/proto not found above ${import.meta.dirname}`);
}

export function protoDir(): string {
  return join(resourcesDir(), 'proto');
}
