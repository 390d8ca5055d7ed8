// What legitimately differs between two fresh clusters running the same
// script: ids (random per cluster), the raft term (elections may take an
// extra round), and in etcdctl's client-side warning lines the timestamp,
// the client's random balancer id and the port. Everything else, revisions
// and error texts included, must match.

export function normalizeOutput(text: string): string {
  return text
    .replace(/"(cluster_id|member_id|leader)":\s*\d+/g, '"$1":<id>')
    .replace(/"raft_term":\s*\d+/g, '"raft_term":<term>')
    .replace(/"(ClusterID|MemberID|Leader)"\s*:\s*\d+/g, '"$1" : <id>')
    .replace(/"RaftTerm"\s*:\s*\d+/g, '"RaftTerm" : <term>')
    .replace(/"ts":"[^"]*"/g, '"ts":<ts>')
    .replace(/endpoint:\/\/client-[0-9a-f-]+/g, 'endpoint://client-<uuid>')
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>');
}
