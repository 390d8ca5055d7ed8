// kube-apiserver's generic serving limits (k8s.io/apiserver
// pkg/server/options/server_run_options.go):
//   --request-timeout                  how long a non-long-running request may take (default 1m0s)
//   --max-requests-inflight            non-mutating requests served at once (default 400; 0 = no limit)
//   --max-mutating-requests-inflight   mutating requests served at once (default 200; 0 = no limit)
// Checked as ServerRunOptions.Validate does, with its messages. Also ours:
//   --trace-buffer-size                request traces kept for /debug/pilothouse/traces (default 1000)

import { InvalidArgumentError } from 'commander';
import { intOption } from '../../common/intOption';
import type { ApiServerOptionGroup } from './optionGroup';
import { DEFAULT_REQUEST_LIMITS, type RequestLimits } from '../server/requestLimits';
import { DEFAULT_TRACE_BUFFER_SIZE } from '../server/traceLog';
import { goDurationMsOption } from './goDurationFlag';

function goInt(v: string): number {
  if (!/^[+-]?\d+$/.test(v)) throw new InvalidArgumentError(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

export const serverRunOptions: ApiServerOptionGroup = {
  name: 'serverRun',
  register(cmd) {
    cmd
      .option(
        '--request-timeout <duration>',
        'An optional field indicating the duration a handler must keep a request open before timing it out. This is the default request timeout for requests; a request\'s ?timeout= may only shorten it. Watches and logs are not bounded by it.',
        (v: string): number | string => goDurationMsOption(v),
        '1m0s',
      )
      .option(
        '--max-requests-inflight <n>',
        'The maximum number of non-mutating requests in flight at a given time. When the server exceeds this, it rejects requests. Zero for no limit.',
        goInt,
        DEFAULT_REQUEST_LIMITS.maxRequestsInflight,
      )
      .option(
        '--max-mutating-requests-inflight <n>',
        'The maximum number of mutating requests in flight at a given time. When the server exceeds this, it rejects requests. Zero for no limit.',
        goInt,
        DEFAULT_REQUEST_LIMITS.maxMutatingRequestsInflight,
      )
      .option('--trace-buffer-size <n>', 'request traces kept for /debug/pilothouse/traces', intOption('--trace-buffer-size', 1, 1_000_000), DEFAULT_TRACE_BUFFER_SIZE);
  },
  apply(flags, cfg) {
    const limits: RequestLimits = {
      // The default arrives as commander's unparsed default text ('1m0s').
      requestTimeoutMs: typeof flags.requestTimeout === 'string' ? goDurationMsOption(flags.requestTimeout) : Number(flags.requestTimeout ?? DEFAULT_REQUEST_LIMITS.requestTimeoutMs),
      maxRequestsInflight: Number(flags.maxRequestsInflight ?? DEFAULT_REQUEST_LIMITS.maxRequestsInflight),
      maxMutatingRequestsInflight: Number(flags.maxMutatingRequestsInflight ?? DEFAULT_REQUEST_LIMITS.maxMutatingRequestsInflight),
    };
    const errs: string[] = [];
    if (limits.maxRequestsInflight < 0) errs.push('--max-requests-inflight can not be negative value');
    if (limits.maxMutatingRequestsInflight < 0) errs.push('--max-mutating-requests-inflight can not be negative value');
    if (limits.requestTimeoutMs < 0) errs.push('--request-timeout can not be negative value');
    if (errs.length > 0) throw new Error(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
    cfg.limits = limits;
    cfg.traceBufferSize = Number(flags.traceBufferSize ?? DEFAULT_TRACE_BUFFER_SIZE);
  },
};
