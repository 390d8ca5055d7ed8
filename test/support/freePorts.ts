import { createServer, type AddressInfo, type Server } from 'node:net';

/**
 * `n` distinct loopback ports the kernel just handed out, released again.
 * For servers that must know their own address before they listen (a Raft
 * member advertises its peer URL in the initial cluster), so they cannot bind
 * port 0 themselves. The ports come from the ephemeral range, which the
 * integration tests' fixed ranges stay below, so parallel unit files and a
 * concurrent integration run do not collide.
 */
export async function freePorts(n: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const s = createServer();
      servers.push(s);
      await new Promise<void>((resolve, reject) => s.once('error', reject).listen(0, '127.0.0.1', resolve));
    }
    return servers.map((s) => (s.address() as AddressInfo).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  }
}
