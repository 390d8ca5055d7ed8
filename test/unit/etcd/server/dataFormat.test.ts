import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkDataFormat, DATA_FORMAT, DataFormatError, readDataFormat, recordDataFormat } from '../../../../main/etcd/server/dataFormat';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function dataDir(format?: string): string {
  const d = mkdtempSync(join(tmpdir(), 'pilothouse-format-'));
  dirs.push(d);
  mkdirSync(join(d, 'member'));
  if (format !== undefined) writeFileSync(join(d, 'member', 'pilothouse-format'), format);
  return d;
}

describe('data format record', () => {
  it('a dir without one reads as unrecorded, passes the check, and gets this build format', () => {
    const d = dataDir();
    expect(readDataFormat(d)).toBeUndefined();
    checkDataFormat(d);
    recordDataFormat(d);
    expect(readDataFormat(d)).toEqual({ format: DATA_FORMAT, writtenBy: expect.stringMatching(/^pilothouse /) });
    expect(readFileSync(join(d, 'member', 'pilothouse-format'), 'utf8').endsWith('}\n')).toBe(true);
  });

  const bad = ['', 'format 1', '{"format":"1"}', '{"format":0}', '{"format":1.5}', '[]'];
  for (const text of bad) {
    it(`refuses a record it cannot read: ${JSON.stringify(text)}`, () => {
      expect(() => checkDataFormat(dataDir(text))).toThrow(DataFormatError);
    });
  }

  it('accepts its own and older formats, refuses newer', () => {
    checkDataFormat(dataDir(JSON.stringify({ format: DATA_FORMAT })));
    expect(() => checkDataFormat(dataDir(JSON.stringify({ format: DATA_FORMAT + 1 })))).toThrow(/has format 2; this build .* reads format 1 and older: refusing to start \(nothing was changed\)/);
  });
});
