// The leader's side of ReadIndex (etcd-io/raft stepLeader MsgReadIndex,
// sendMsgReadIndexResponse): record the commit index, confirm leadership
// (a heartbeat round under ReadOnlySafe), answer.

import type { Raft } from './raft';
import { bcastHeartbeatWithCtx } from './replication';
import { MessageType, NONE, ReadOnlyOption, type Index, type Message } from './types';
import { message } from './util';

/** Answers a ReadIndex request at `readIndex`: locally (our own request) or with a ReadIndexResp. */
export function respondToReadIndex(r: Raft, req: Message, readIndex: Index): void {
  if (req.from === NONE || req.from === r.id) {
    r.readStates.push({ index: readIndex, requestCtx: req.entries[0]!.data });
    return;
  }
  r.send(message({ type: MessageType.ReadIndexResp, to: req.from, index: readIndex, entries: req.entries }));
}

export function sendReadIndexResponse(r: Raft, m: Message): void {
  if (r.readOnly.option === ReadOnlyOption.Safe) {
    const ctx = m.entries[0]!.data;
    r.readOnly.addRequest(r.raftLog.committed, m);
    r.readOnly.recvAck(r.id, ctx);
    bcastHeartbeatWithCtx(r, ctx);
  } else {
    respondToReadIndex(r, m, r.raftLog.committed);
  }
}

export function releasePendingReadIndexMessages(r: Raft): void {
  if (r.pendingReadIndexMessages.length === 0 || !r.committedEntryInCurrentTerm()) return;
  const held = r.pendingReadIndexMessages;
  r.pendingReadIndexMessages = [];
  for (const m of held) sendReadIndexResponse(r, m);
}

