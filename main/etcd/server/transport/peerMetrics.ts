// etcd 3.4's peer network metrics (etcdserver/api/rafthttp/metrics.go), same
// names and labels, so dashboards built for etcd read ours. Peer ids in
// labels are bare hex, as etcd prints them. Without a registry every method
// is a no-op.

import { Counter, Gauge, type Registry } from 'prom-client';
import type { MemberId } from '../../raft/types';
import { idToHex } from './peerProtocol';

export class PeerMetrics {
  private readonly sentBytes?: Counter<'To'>;
  private readonly receivedBytes?: Counter<'From'>;
  private readonly sentFailures?: Counter<'To'>;
  private readonly receivedFailures?: Counter<'From'>;
  private readonly snapshotSendSuccess?: Counter<'To'>;
  private readonly snapshotSendFailures?: Counter<'To'>;
  private readonly activePeers?: Gauge<'Local' | 'Remote'>;
  private readonly disconnectedPeers?: Counter<'Local' | 'Remote'>;
  private readonly local: string;

  constructor(localId: MemberId, registry?: Registry) {
    this.local = idToHex(localId);
    if (!registry) return;
    const registers = [registry];
    const counter = <L extends string>(name: string, help: string, labelNames: L[]) =>
      new Counter<L>({ name, help, labelNames, registers });
    this.sentBytes = counter('etcd_network_peer_sent_bytes_total', 'The total number of bytes sent to peers.', ['To']);
    this.receivedBytes = counter('etcd_network_peer_received_bytes_total', 'The total number of bytes received from peers.', ['From']);
    this.sentFailures = counter('etcd_network_peer_sent_failures_total', 'The total number of send failures from peers.', ['To']);
    this.receivedFailures = counter('etcd_network_peer_received_failures_total', 'The total number of receive failures from peers.', ['From']);
    this.snapshotSendSuccess = counter('etcd_network_snapshot_send_success', 'Total number of successful snapshot sends', ['To']);
    this.snapshotSendFailures = counter('etcd_network_snapshot_send_failures', 'Total number of snapshot send failures', ['To']);
    this.activePeers = new Gauge({ name: 'etcd_network_active_peers', help: 'The current number of active peer connections.', labelNames: ['Local', 'Remote'], registers });
    this.disconnectedPeers = counter('etcd_network_disconnected_peers_total', 'The total number of disconnected peers.', ['Local', 'Remote']);
  }

  sent(to: MemberId, bytes: number): void {
    this.sentBytes?.inc({ To: idToHex(to) }, bytes);
  }

  received(from: MemberId, bytes: number): void {
    this.receivedBytes?.inc({ From: idToHex(from) }, bytes);
  }

  sendFailed(to: MemberId, messages = 1): void {
    if (messages > 0) this.sentFailures?.inc({ To: idToHex(to) }, messages);
  }

  receiveFailed(from: MemberId): void {
    this.receivedFailures?.inc({ From: idToHex(from) });
  }

  snapshotSent(to: MemberId, ok: boolean): void {
    (ok ? this.snapshotSendSuccess : this.snapshotSendFailures)?.inc({ To: idToHex(to) });
  }

  connected(remote: MemberId): void {
    this.activePeers?.inc({ Local: this.local, Remote: idToHex(remote) });
  }

  disconnected(remote: MemberId): void {
    this.activePeers?.dec({ Local: this.local, Remote: idToHex(remote) });
    this.disconnectedPeers?.inc({ Local: this.local, Remote: idToHex(remote) });
  }
}
