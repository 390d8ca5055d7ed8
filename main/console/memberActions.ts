// What an operator can do to one member from the console, each answered with
// the command that does the same from a terminal (with DIR/etcdctl.env
// sourced), so the console teaches the commands instead of hiding them:
//   stop    kill -TERM <pid>        kill     kill -9 <pid>
//   pause   kill -STOP <pid>        resume   kill -CONT <pid>
//   start   pilothouse etcd --name m1 ...   restart  kill -TERM <pid>; pilothouse etcd ...
//   make-leader  etcdctl --endpoints=<leader URL> move-leader <id>  (MoveLeader goes to the current leader)
//   defrag       etcdctl defrag --endpoints=<member URL>            (runs on that member only)
// Messages follow etcdctl's output ("Leadership transferred from … to …",
// "Finished defragmenting etcd member[…]"). make-leader and defrag go through
// the members' API and work on any cluster; the process actions need a
// cluster whose processes the console runs (capabilities.processControl).

import type { ActionResult, MemberAction } from '../../preload/contract';
import { idHex, type WireStatus } from '../client/etcd/memberClient';
import { notPossible, readOnly, type ClusterMember, type ConsoleCluster } from './cluster';

/** What the actions need of the cluster; commandLine gives the `start` command line. */
export type ActionDeps = Pick<ConsoleCluster, 'mode' | 'capabilities' | 'writable' | 'members' | 'memberClient' | 'process' | 'commandLine'>;

/** One POSIX shell word. */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** `pilothouse etcd --name m1 ...` (or `... apiserver ...`) as a user would type it (the CLI's own path when not installed as `pilothouse`). */
function startCommand(deps: ActionDeps, name: string): string {
  const line = deps.commandLine(name);
  if (!line) return '';
  const { program, args } = line;
  const env = Object.entries(program.env ?? {}).map(([k, v]) => `${k}=${shellQuote(v)}`);
  return [...env, program.command, ...program.args, ...args].map((w, i) => (i < env.length ? w : shellQuote(w))).join(' ');
}

const errText = (err: unknown) => {
  const e = err as { details?: string; message?: string };
  return e.details || e.message || String(err);
};

/** An action on a member (or, for the process actions, on any supervised component such as the API server). */
export async function memberAction(deps: ActionDeps, member: string, action: MemberAction): Promise<ActionResult> {
  const layout = deps.members.find((m) => m.name === member);
  if (action === 'make-leader' || action === 'defrag') {
    if (!layout) return { ok: false, message: deps.process(member) ? `${member} is not an etcd member` : `no member ${member}`, command: '' };
    if (!deps.writable) return { ok: false, message: readOnly(`${action} ${member}`), command: '' };
    return action === 'make-leader' ? makeLeader(deps, layout) : defrag(deps, layout);
  }
  if (!deps.capabilities.processControl) {
    if (!layout) return { ok: false, message: `no member ${member}`, command: '' };
    return { ok: false, message: notPossible(`${action} ${member}`, deps), command: '' };
  }
  const proc = deps.process(member);
  if (!proc) return { ok: false, message: `no member ${member}`, command: '' };
  const pid = proc.pid;
  const pidWord = pid === undefined ? '<pid>' : String(pid);
  switch (action) {
    case 'stop':
      if (!proc.running) return { ok: false, message: `${member} is not running`, command: `kill -TERM ${pidWord}` };
      await proc.stop();
      return { ok: true, message: `${member} stopped (pid ${pid})`, command: `kill -TERM ${pidWord}` };
    case 'kill':
      if (!proc.running) return { ok: false, message: `${member} is not running`, command: `kill -9 ${pidWord}` };
      await proc.kill();
      return { ok: true, message: `${member} killed with SIGKILL (pid ${pid}); it stays down until started`, command: `kill -9 ${pidWord}` };
    case 'pause':
      return proc.pause()
        ? { ok: true, message: `${member} paused (SIGSTOP, pid ${pid})`, command: `kill -STOP ${pidWord}` }
        : { ok: false, message: `${member} is ${proc.state}, not running`, command: `kill -STOP ${pidWord}` };
    case 'resume':
      return proc.resume()
        ? { ok: true, message: `${member} resumed (SIGCONT, pid ${pid})`, command: `kill -CONT ${pidWord}` }
        : { ok: false, message: `${member} is ${proc.state}, not paused`, command: `kill -CONT ${pidWord}` };
    case 'start': {
      const command = startCommand(deps, member);
      if (proc.running) return { ok: false, message: `${member} is already running (pid ${pid})`, command };
      proc.start();
      return { ok: true, message: `${member} started (pid ${proc.pid})`, command };
    }
    case 'restart': {
      const command = `kill -TERM ${pidWord}; ${startCommand(deps, member)}`;
      await proc.restart();
      return { ok: true, message: `${member} restarted (pid ${proc.pid})`, command };
    }
  }
}

/** etcdctl defrag on that member only. */
async function defrag(deps: ActionDeps, member: ClusterMember): Promise<ActionResult> {
  const command = `etcdctl defrag --endpoints=${member.clientUrl}`;
  try {
    await deps.memberClient(member.name).defragment();
    return { ok: true, message: `Finished defragmenting etcd member[${member.clientUrl}]`, command };
  } catch (err) {
    return { ok: false, message: `Failed to defragment etcd member[${member.clientUrl}] (${errText(err)})`, command };
  }
}

/** etcdctl move-leader: find the leader through Status, send MoveLeader{target} to it. */
async function makeLeader(deps: ActionDeps, target: ClusterMember): Promise<ActionResult> {
  const answers = new Map<string, WireStatus>();
  await Promise.all(
    deps.members.map(async (m) => {
      try {
        answers.set(m.name, await deps.memberClient(m.name).status(1_000));
      } catch {
        // unreachable members cannot be the leader we send to
      }
    }),
  );
  const targetId = answers.get(target.name)?.header?.member_id;
  const leader = [...answers].find(([, st]) => st.header && st.leader !== '0' && st.leader === st.header.member_id);
  const idWord = targetId ? idHex(targetId) : '<member id>';
  const command = `etcdctl --endpoints=${(leader ? deps.members.find((m) => m.name === leader[0])! : target).clientUrl} move-leader ${idWord}`;
  if (!targetId) return { ok: false, message: `${target.name} does not answer, so its member id is unknown`, command };
  if (!leader) return { ok: false, message: 'no leader: no member reports itself as leader', command };
  const [leaderName, leaderStatus] = leader;
  if (leaderName === target.name) return { ok: false, message: `${target.name} is already the leader`, command };
  try {
    await deps.memberClient(leaderName).moveLeader(targetId);
    return { ok: true, message: `Leadership transferred from ${idHex(leaderStatus.header!.member_id)} to ${idHex(targetId)}`, command };
  } catch (err) {
    return { ok: false, message: errText(err), command };
  }
}
