// Progress of a Maintenance.Snapshot stream, from what the member sends:
// data chunks {remaining_bytes, blob} where remaining_bytes counts the body
// bytes still to come after this chunk, then one last message whose blob is
// the body's 32-byte sha256, also with remaining_bytes 0 (etcd 3.4
// v3rpc/maintenance.go; ours streams the same). So after any data chunk:
//   total file size = bytes received so far + remaining_bytes + 32
// and the total is fixed at the first chunk with remaining 0 (the hash
// message that follows must not move it). Pure.

export const SHA256_TRAILER = 32;

export class SnapshotProgressCounter {
  bytes = 0;
  totalBytes: number | undefined;
  private bodyDone = false;

  /** One stream message; remaining as the wire's decimal string or a number. */
  add(blobLength: number, remaining: string | number): void {
    this.bytes += blobLength;
    if (this.bodyDone) return;
    const rest = Number(remaining);
    this.totalBytes = this.bytes + rest + SHA256_TRAILER;
    if (rest === 0) this.bodyDone = true;
  }

  /** 0..1, undefined until the first chunk. */
  get fraction(): number | undefined {
    return this.totalBytes === undefined || this.totalBytes === 0 ? undefined : Math.min(1, this.bytes / this.totalBytes);
  }
}
