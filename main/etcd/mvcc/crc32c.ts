// CRC-32C (Castagnoli), the checksum etcd's HashKV uses (crc32.MakeTable(crc32.Castagnoli)).
// Incremental: feed chunks with update(), read with digest().

const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export class Crc32c {
  private crc = 0xffffffff;

  update(bytes: Uint8Array): this {
    let c = this.crc;
    for (let i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
    this.crc = c;
    return this;
  }

  digest(): number {
    return (this.crc ^ 0xffffffff) >>> 0;
  }
}

export function crc32c(bytes: Uint8Array): number {
  return new Crc32c().update(bytes).digest();
}
