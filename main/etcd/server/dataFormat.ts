// The format a member's data dir is written in (member/pilothouse-format):
// which WAL, snapshot and state encodings a build must understand to use it.
// A build refuses a data dir of a newer format before it touches anything —
// no mode change, no WAL repair, no new file — as etcd 3.6 refuses to run on
// storage a newer version wrote. A data dir without the file was written
// before formats were recorded: format 1.
//
// Formats:
//   1  WAL (etcd's framing, crc32c chain), snapshot files (etcd's snappb
//      framing around our state), state as snapshotData.ts encodes it.

import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { BUILD_INFO, shortCommit } from '../../common/version';

/** The format this build writes, and the newest it reads. */
export const DATA_FORMAT = 1;

const FILE = 'pilothouse-format';

export class DataFormatError extends Error {}

export interface RecordedFormat {
  format: number;
  /** The build that wrote it ("pilothouse 0.1.0 (commit 1a2b3c4)"). */
  writtenBy?: string;
}

function formatPath(dataDir: string): string {
  return join(dataDir, 'member', FILE);
}

/** What the data dir records, or undefined when it records nothing (a new dir, or one from before formats). */
export function readDataFormat(dataDir: string): RecordedFormat | undefined {
  let text: string;
  try {
    text = readFileSync(formatPath(dataDir), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new DataFormatError(`cannot read ${formatPath(dataDir)}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new DataFormatError(`${formatPath(dataDir)} is not a data format record (want {"format": N})`);
  }
  const format = (parsed as { format?: unknown }).format;
  if (typeof format !== 'number' || !Number.isInteger(format) || format < 1) {
    throw new DataFormatError(`${formatPath(dataDir)} is not a data format record (want {"format": N})`);
  }
  const writtenBy = (parsed as { writtenBy?: unknown }).writtenBy;
  return { format, ...(typeof writtenBy === 'string' && { writtenBy }) };
}

/** Throws DataFormatError when this build cannot read the data dir; reads only. */
export function checkDataFormat(dataDir: string): void {
  const found = readDataFormat(dataDir);
  if (!found || found.format <= DATA_FORMAT) return;
  throw new DataFormatError(
    `data dir ${join(dataDir, 'member')} has format ${found.format}${found.writtenBy ? `, written by ${found.writtenBy}` : ''}; ` +
      `this build (pilothouse ${BUILD_INFO.version}) reads format ${DATA_FORMAT} and older: refusing to start (nothing was changed)`,
  );
}

/** Records this build's format in the data dir (atomically, fsynced), unless it already says so. */
export function recordDataFormat(dataDir: string): void {
  if (readDataFormat(dataDir)?.format === DATA_FORMAT) return;
  const path = formatPath(dataDir);
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, `${JSON.stringify({ format: DATA_FORMAT, writtenBy: `pilothouse ${BUILD_INFO.version} (commit ${shortCommit()})` })}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  const dir = openSync(join(dataDir, 'member'), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
