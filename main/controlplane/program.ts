// How to run one component: a command, its leading args, extra env. The
// component's own flags come after program.args (SupervisedProcess), so the
// same flags run under this program (`node cli.js etcd ...`) or another
// (Debian's /usr/bin/etcd).

export interface Program {
  command: string;
  args: string[];
  env?: Record<string, string>;
}
