// Who leads, for an upgrade's sake:
//   - the etcd leader is replaced last, and before it goes down its
//     leadership is handed to a member that already runs the target
//     (`etcdctl move-leader`), so the cluster has one planned election
//     instead of an election timeout's worth of unavailability;
//   - the controllers' elected components (scheduler, controller manager)
//     hold Leases; a replaced controllers process is back only once a new
//     holder renews them.

import { ELECTED_COMPONENTS } from '../controlplane/readiness';
import type { ApplyPlane } from './applyPlane';

const MOVE_WAIT_MS = 10_000;

interface MemberView {
  name: string;
  id: string;
  leader: string;
}

async function memberViews(plane: ApplyPlane): Promise<MemberView[]> {
  const all = await Promise.all(
    plane.members.map(async (m) => {
      const st = await plane.memberClient(m.name).status(1_000).catch(() => undefined);
      return st?.header ? { name: m.name, id: st.header.member_id, leader: st.leader } : undefined;
    }),
  );
  return all.filter((v): v is MemberView => v !== undefined);
}

/**
 * When `name` leads, moves the leadership to the first healthy member of
 * `preferred` (members already upgraded), else to any other member, and waits
 * until the members agree on it. Returns what it did; undefined when `name`
 * does not lead. A failed move is reported, not thrown: replacing the leader
 * then costs an election, which the cluster survives.
 */
export async function moveLeadershipAway(plane: ApplyPlane, name: string, preferred: string[]): Promise<string | undefined> {
  const views = await memberViews(plane);
  const me = views.find((v) => v.name === name);
  if (!me || me.leader !== me.id) return undefined;
  const others = views.filter((v) => v.name !== name);
  const to = others.find((v) => preferred.includes(v.name)) ?? others[0];
  if (!to) return `leads, and no other member answers: replacing it costs an election`;
  try {
    await plane.memberClient(name).moveLeader(to.id);
  } catch (err) {
    return `leads; moving the leadership to ${to.name} failed (${(err as Error).message}): replacing it costs an election`;
  }
  const deadline = Date.now() + MOVE_WAIT_MS;
  while (Date.now() < deadline) {
    const now = await memberViews(plane);
    if (now.length > 0 && now.every((v) => v.leader === to.id)) return `led; leadership moved to ${to.name} (etcdctl move-leader ${BigInt(to.id).toString(16)})`;
    await new Promise((r) => setTimeout(r, 100));
  }
  return `led; asked to move the leadership to ${to.name}, but the members did not agree on it within ${MOVE_WAIT_MS} ms`;
}

/** The holders of the elected components' Leases in kube-system (those that have one). */
export async function electedHolders(plane: ApplyPlane): Promise<string[]> {
  const leases = await plane
    .rest()
    .request<{ items: { metadata: { name?: string }; spec?: { holderIdentity?: string } }[] }>('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases', {
      signal: AbortSignal.timeout(2_000),
    });
  return leases.items
    .filter((l) => (ELECTED_COMPONENTS as readonly string[]).includes(l.metadata.name ?? ''))
    .map((l) => l.spec?.holderIdentity)
    .filter((h): h is string => typeof h === 'string' && h !== '');
}

/** The member every member that answers names as leader; undefined when none answers or they disagree. */
export async function currentLeader(plane: ApplyPlane): Promise<string | undefined> {
  const views = await memberViews(plane);
  const id = views[0]?.leader;
  if (id === undefined || id === '0' || views.some((v) => v.leader !== id)) return undefined;
  return views.find((v) => v.id === id)?.name;
}
