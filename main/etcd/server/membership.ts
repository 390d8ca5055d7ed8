// The cluster's members as this member has applied them (etcd's
// membership.RaftCluster, less the v2 store). Changed only by the apply loop:
// ConfChange entries add/remove/update members, and the "publish" proposal
// sets a member's name and client URLs. Kept inside snapshots.

import type { MemberId } from '../raft/types';
import type { MemberInfo } from '../api/etcdServer';

/** What a ConfChange entry's context carries (etcd: the JSON of membership.Member). */
export interface MemberContext {
  id: MemberId;
  name: string;
  peerUrls: string[];
  isLearner: boolean;
}

export function encodeMemberContext(m: MemberContext): Uint8Array {
  // ids go as decimal strings: JSON numbers lose precision above 2^53.
  const json = JSON.stringify({ id: m.id.toString(), name: m.name, peerURLs: m.peerUrls, isLearner: m.isLearner });
  return new TextEncoder().encode(json);
}

export function decodeMemberContext(bytes: Uint8Array): MemberContext {
  const o = JSON.parse(new TextDecoder().decode(bytes)) as { id: string; name?: string; peerURLs?: string[]; isLearner?: boolean };
  return { id: BigInt(o.id), name: o.name ?? '', peerUrls: o.peerURLs ?? [], isLearner: o.isLearner ?? false };
}

export interface MembershipSnapshot {
  members: { id: string; name: string; peerUrls: string[]; clientUrls: string[]; isLearner: boolean }[];
  removed: string[];
}

export class Membership {
  private readonly members = new Map<MemberId, MemberInfo>();
  private readonly removed = new Set<MemberId>();

  /** ConfChange AddNode / AddLearnerNode. Re-adding a present member keeps its published attributes. */
  add(ctx: MemberContext): void {
    const existing = this.members.get(ctx.id);
    if (existing) {
      existing.peerUrls = [...ctx.peerUrls];
      existing.isLearner = ctx.isLearner;
      return;
    }
    // Initial-cluster members carry their name in the context; runtime-added
    // ones have none until they publish it (etcdctl shows them "unstarted").
    this.members.set(ctx.id, { id: ctx.id, name: ctx.name, peerUrls: [...ctx.peerUrls], clientUrls: [], isLearner: ctx.isLearner });
  }

  remove(id: MemberId): void {
    this.members.delete(id);
    this.removed.add(id);
  }

  updatePeerUrls(id: MemberId, peerUrls: string[]): void {
    const m = this.members.get(id);
    if (m) m.peerUrls = [...peerUrls];
  }

  /** The "publish" request: a member announces its name and client URLs. */
  setAttributes(id: MemberId, name: string, clientUrls: string[]): void {
    const m = this.members.get(id);
    if (m) {
      m.name = name;
      m.clientUrls = [...clientUrls];
    }
  }

  get(id: MemberId): MemberInfo | undefined {
    return this.members.get(id);
  }

  isRemoved(id: MemberId): boolean {
    return this.removed.has(id);
  }

  /** Sorted by id, as etcd lists them. */
  list(): MemberInfo[] {
    return [...this.members.values()]
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((m) => ({ ...m, peerUrls: [...m.peerUrls], clientUrls: [...m.clientUrls] }));
  }

  toSnapshot(): MembershipSnapshot {
    return {
      members: this.list().map((m) => ({ ...m, id: m.id.toString() })),
      removed: [...this.removed].map((id) => id.toString()),
    };
  }

  static fromSnapshot(s: MembershipSnapshot): Membership {
    const out = new Membership();
    for (const m of s.members) out.members.set(BigInt(m.id), { ...m, id: BigInt(m.id) });
    for (const id of s.removed) out.removed.add(BigInt(id));
    return out;
  }
}
