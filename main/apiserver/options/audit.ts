// kube-apiserver's audit log flags (k8s.io/apiserver pkg/server/options/audit.go):
//   --audit-policy-file     the audit.k8s.io Policy; without it nothing is audited
//   --audit-log-path        the log file ("-" = stdout); without it no log backend
//   --audit-log-maxage / --audit-log-maxbackup / --audit-log-maxsize   rotation (days, files, MB)
//   --audit-log-format      json (default) or legacy
//   --audit-log-mode        batch | blocking | blocking-strict (accepted; lines are always
//                           queued and written without holding the request)
// Values are checked as kube's AuditLogOptions.Validate does, with its messages.

import { InvalidArgumentError } from 'commander';
import { auditLogSink } from '../audit/auditSink';
import { openAuditLog } from '../audit/logBackend';
import { loadPolicyFile, PolicyChecker } from '../audit/policy';
import type { ApiServerOptionGroup } from './optionGroup';

const FORMATS = ['legacy', 'json'];
const MODES = ['batch', 'blocking', 'blocking-strict'];

function goInt(v: string): number {
  if (!/^[+-]?\d+$/.test(v)) throw new InvalidArgumentError(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

export const auditOptions: ApiServerOptionGroup = {
  name: 'audit',
  register(cmd) {
    cmd
      .option('--audit-policy-file <file>', 'Path to the file that defines the audit policy configuration.')
      .option('--audit-log-path <path>', "If set, all requests coming to the apiserver will be logged to this file.  '-' means standard out.")
      .option('--audit-log-maxage <days>', 'The maximum number of days to retain old audit log files based on the timestamp encoded in their filename.', goInt, 0)
      .option('--audit-log-maxbackup <n>', 'The maximum number of old audit log files to retain. Setting a value of 0 will mean there\'s no restriction on the number of files.', goInt, 0)
      .option('--audit-log-maxsize <mb>', 'The maximum size in megabytes of the audit log file before it gets rotated.', goInt, 0)
      .option('--audit-log-format <format>', 'Format of saved audits. "legacy" indicates 1-line text format for each event. "json" indicates structured json format. Known formats are legacy,json.', 'json')
      .option('--audit-log-mode <mode>', 'Strategy for sending audit events. Known modes are batch,blocking,blocking-strict.', 'blocking');
  },
  apply(flags, cfg) {
    const path = typeof flags.auditLogPath === 'string' ? flags.auditLogPath : '';
    const policyFile = typeof flags.auditPolicyFile === 'string' ? flags.auditPolicyFile : '';
    if (path !== '') {
      const errs: string[] = [];
      const mode = String(flags.auditLogMode ?? 'blocking');
      if (!MODES.includes(mode)) errs.push(`invalid audit log mode ${mode}, allowed modes are ${JSON.stringify(MODES.join(','))}`);
      const format = String(flags.auditLogFormat ?? 'json');
      if (!FORMATS.includes(format)) errs.push(`invalid audit log format ${format}, allowed formats are ${JSON.stringify(FORMATS.join(','))}`);
      for (const [flag, key] of [['--audit-log-maxage', 'auditLogMaxage'], ['--audit-log-maxbackup', 'auditLogMaxbackup'], ['--audit-log-maxsize', 'auditLogMaxsize']] as const) {
        const n = Number(flags[key] ?? 0);
        if (n < 0) errs.push(`${flag} ${n} can't be a negative number`);
      }
      if (errs.length > 0) throw new Error(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
    }
    if (policyFile === '') return;
    const checker = new PolicyChecker(loadPolicyFile(policyFile));
    // kube: a policy without a backend (or a backend without a policy) records nothing.
    if (path === '') return;
    cfg.plugins ??= {};
    cfg.plugins.auditSinks ??= [];
    cfg.plugins.auditSinks.push((env) =>
      auditLogSink({
        checker,
        writer: openAuditLog({
          path,
          maxAgeDays: Number(flags.auditLogMaxage ?? 0),
          maxBackups: Number(flags.auditLogMaxbackup ?? 0),
          maxSizeMB: Number(flags.auditLogMaxsize ?? 0),
          log: env.log,
        }),
        format: flags.auditLogFormat === 'legacy' ? 'legacy' : 'json',
        resources: env.resources,
      }),
    );
  },
};
