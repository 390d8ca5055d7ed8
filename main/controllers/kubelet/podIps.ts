// Pod IPs for one simulated node: node i (1-based) owns 10.244.i.0/24, as
// the node IPAM controller would carve a /16 cluster CIDR; .1 is the bridge,
// pods get .2–.254, the lowest free address first, released on deletion.

export function nodePodCidr(index: number): string {
  return `10.244.${index}.0/24`;
}

/** The node's own address on the simulated node network. */
export function nodeInternalIp(index: number): string {
  return `172.18.${Math.floor(index / 250)}.${(index % 250) + 2}`;
}

export class PodIpAllocator {
  private readonly used = new Map<string, number>();
  private readonly taken = new Set<number>();

  constructor(private readonly index: number) {}

  /** The pod's address (stable for the same pod uid); undefined when the /24 is full. */
  assign(podUid: string): string | undefined {
    const have = this.used.get(podUid);
    if (have !== undefined) return this.addr(have);
    for (let host = 2; host <= 254; host++) {
      if (this.taken.has(host)) continue;
      this.taken.add(host);
      this.used.set(podUid, host);
      return this.addr(host);
    }
    return undefined;
  }

  /** Marks an address a pod already reports as taken (after a restart of the kubelet). */
  adopt(podUid: string, ip: string): void {
    const prefix = `10.244.${this.index}.`;
    if (!ip.startsWith(prefix)) return;
    const host = Number(ip.slice(prefix.length));
    if (host >= 2 && host <= 254 && !this.taken.has(host)) {
      this.taken.add(host);
      this.used.set(podUid, host);
    }
  }

  release(podUid: string): void {
    const host = this.used.get(podUid);
    if (host === undefined) return;
    this.used.delete(podUid);
    this.taken.delete(host);
  }

  private addr(host: number): string {
    return `10.244.${this.index}.${host}`;
  }
}
