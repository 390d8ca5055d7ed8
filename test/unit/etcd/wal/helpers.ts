import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EntryType, type Entry } from '../../../../main/etcd/raft/types';

/** A fresh directory per test; `cleanup` removes every one made. */
export function tempDirs() {
  const made: string[] = [];
  return {
    make(): string {
      const d = fs.mkdtempSync(join(tmpdir(), 'pilothouse-wal-'));
      made.push(d);
      return d;
    },
    cleanup(): void {
      for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true });
    },
  };
}

/** Entries [from, to] at `term`, each carrying a recognisable payload. */
export function ents(from: number, to: number, term: number, size = 8): Entry[] {
  const out: Entry[] = [];
  for (let i = from; i <= to; i++) {
    const data = new Uint8Array(size);
    for (let j = 0; j < size; j++) data[j] = (i * 31 + term * 7 + j) & 0xff || 1;
    out.push({ term, index: i, type: i % 5 === 0 ? EntryType.ConfChange : EntryType.Normal, data });
  }
  return out;
}

export const walFiles = (dir: string) => fs.readdirSync(dir).filter((n) => n.endsWith('.wal')).sort();
