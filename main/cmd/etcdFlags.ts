// etcd 3.4's command line, parsed into a MemberConfig.
//
// etcd uses Go's `flag` package, so operators type `--name m1`, `-name m1`,
// `--name=m1` interchangeably, and every flag can also come from ETCD_<FLAG>
// (upper case, dashes as underscores) when it is not on the command line.
// Errors reproduce etcd's wording (etcdmain/config.go, embed/config.go) so
// scripts and muscle memory written against etcd keep working:
//   - unknown flag or unparsable value: exit 2, Go flag's text;
//   - failed validation: exit 1, "error verifying flags, ... See 'etcd --help'.".

import { parseGoDurationMs, parseGoDurationStrict } from '../common/goDuration';
import type { MemberConfig } from '../etcd/server/memberConfig';
import type { TlsFiles } from '../etcd/server/tlsFiles';
import type { AutoCompactionConfig } from '../etcd/server/autoCompactor';

export const DEFAULT_NAME = 'default';
/** embed.maxElectionMs: etcd rejects longer election timeouts. */
const MAX_ELECTION_MS = 50_000;

type FlagKind = 'string' | 'uint' | 'int64' | 'urls' | 'bool' | 'state' | 'duration' | 'origins';

interface FlagSpec {
  kind: FlagKind;
  default: string;
  /** Accepted for compatibility with etcd command lines; has no effect here. */
  ignored?: boolean;
}

// Defaults are etcd 3.4's (embed.NewConfig). --data-dir and --initial-cluster
// depend on other flags and are filled in after parsing, as etcdmain does.
const FLAGS: Record<string, FlagSpec> = {
  name: { kind: 'string', default: DEFAULT_NAME },
  'data-dir': { kind: 'string', default: '' },
  'listen-client-urls': { kind: 'urls', default: 'http://localhost:2379' },
  'advertise-client-urls': { kind: 'urls', default: 'http://localhost:2379' },
  'listen-peer-urls': { kind: 'urls', default: 'http://localhost:2380' },
  'initial-advertise-peer-urls': { kind: 'urls', default: 'http://localhost:2380' },
  'initial-cluster': { kind: 'string', default: '' },
  'initial-cluster-state': { kind: 'state', default: 'new' },
  'initial-cluster-token': { kind: 'string', default: 'etcd-cluster' },
  'heartbeat-interval': { kind: 'uint', default: '100' },
  'election-timeout': { kind: 'uint', default: '1000' },
  'snapshot-count': { kind: 'uint', default: '100000' },
  'quota-backend-bytes': { kind: 'int64', default: '0' },
  'max-request-bytes': { kind: 'uint', default: '1572864' },
  'max-txn-ops': { kind: 'uint', default: '128' },
  // Origins allowed on the client port's HTTP endpoints: "*" or URLs.
  cors: { kind: 'origins', default: '*' },
  'experimental-watch-progress-notify-interval': { kind: 'duration', default: '10m' },
  // TLS (etcd's embed.Config ClientTLSInfo / PeerTLSInfo): PEM file paths.
  'cert-file': { kind: 'string', default: '' },
  'key-file': { kind: 'string', default: '' },
  'trusted-ca-file': { kind: 'string', default: '' },
  'client-cert-auth': { kind: 'bool', default: 'false' },
  'peer-cert-file': { kind: 'string', default: '' },
  'peer-key-file': { kind: 'string', default: '' },
  'peer-trusted-ca-file': { kind: 'string', default: '' },
  'peer-client-cert-auth': { kind: 'bool', default: 'false' },
  // Logging and tuning knobs that commonly appear in etcd command lines.
  logger: { kind: 'string', default: 'capnslog', ignored: true },
  'log-level': { kind: 'string', default: 'info', ignored: true },
  'log-outputs': { kind: 'string', default: 'default', ignored: true },
  'enable-pprof': { kind: 'bool', default: 'false', ignored: true },
  metrics: { kind: 'string', default: 'basic', ignored: true },
  'max-snapshots': { kind: 'uint', default: '5', ignored: true },
  'max-wals': { kind: 'uint', default: '5', ignored: true },
  'strict-reconfig-check': { kind: 'bool', default: 'true' },
  // History compaction (embed.Config AutoCompactionMode / AutoCompactionRetention).
  'auto-compaction-mode': { kind: 'string', default: 'periodic' },
  'auto-compaction-retention': { kind: 'string', default: '0' },
};

/** Default quota when --quota-backend-bytes is 0 (etcd's DefaultQuotaBytes). */
export const DEFAULT_QUOTA_BYTES = 2 * 1024 * 1024 * 1024;

export class FlagError extends Error {
  constructor(
    message: string,
    /** Process exit code etcd uses for this kind of error. */
    readonly exitCode: number,
    /** Go flag errors are followed by the usage text. */
    readonly showUsage: boolean,
    /** The etcd package that reports it, as etcd's log shows it ("etcdmain: "); Go flag errors have none. */
    readonly logPrefix = '',
  ) {
    super(message);
    this.name = 'FlagError';
  }
}

export type ParsedEtcdFlags =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'run'; config: MemberConfig; warnings: string[] };

/** Parse etcd flags from argv (without the program and `etcd` words) and env. */
export function parseEtcdFlags(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = {},
  /** Receives etcd's informational lines about environment variables, as they happen. */
  log: (line: string) => void = () => {},
): ParsedEtcdFlags {
  const raw = new Map<string, string>();
  const warnings: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      if (i + 1 < argv.length) throw verifyError(`'${argv[i + 1]}' is not a valid flag`);
      break;
    }
    if (!arg.startsWith('-') || arg === '-') throw verifyError(`'${arg}' is not a valid flag`);
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq >= 0 ? body.slice(0, eq) : body;
    if (name === 'h' || name === 'help') return { kind: 'help' };
    if (name === 'version') return { kind: 'version' };
    const spec = FLAGS[name];
    if (!spec) throw new FlagError(`flag provided but not defined: -${name}`, 2, true);
    let value: string;
    if (eq >= 0) value = body.slice(eq + 1);
    else if (spec.kind === 'bool') value = 'true';
    else if (i + 1 < argv.length) value = argv[++i]!;
    else throw new FlagError(`flag needs an argument: -${name}`, 2, true);
    checkValue(spec, value, `flag -${name}`, 2);
    raw.set(name, value);
  }

  // Environment variables fill in what the command line left unset; visited
  // in flag-name order, as Go's FlagSet.VisitAll does (etcd pkg/flags
  // SetFlagsFromEnv). Empty values count as unset. A bad value is reported
  // only after every variable was visited and conflicts were checked.
  const setOnCommandLine = new Set(raw.keys());
  const envKeys = new Map<string, string>();
  let envError: FlagError | undefined;
  for (const [name, spec] of Object.entries(FLAGS).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const envName = `ETCD_${name.toUpperCase().replace(/-/g, '_')}`;
    envKeys.set(envName, name);
    const value = env[envName];
    if (setOnCommandLine.has(name) || value === undefined || value === '') continue;
    try {
      checkValue(spec, value, envName, 1, true);
    } catch (err) {
      envError = err as FlagError;
      continue;
    }
    raw.set(name, value);
    log(`pkg/flags: recognized and used environment variable ${envName}=${value}`);
  }
  for (const [key, value] of Object.entries(env)) {
    if (key.startsWith('ETCD_') && value !== undefined && !envKeys.has(key)) {
      log(`pkg/flags: unrecognized environment variable ${key}=${value}`);
    }
  }
  for (const [envName, name] of envKeys) {
    if (setOnCommandLine.has(name) && env[envName]) {
      throw new FlagError(
        `conflicting environment variable "${envName}" is shadowed by corresponding command-line flag (either unset environment variable or disable flag)`,
        1,
        false,
        'pkg/flags: ',
      );
    }
  }
  if (envError) throw envError;

  for (const name of raw.keys()) {
    if (FLAGS[name]!.ignored) warnings.push(`etcdmain: flag --${name} is accepted for compatibility with etcd and has no effect`);
  }
  const get = (name: string): string => raw.get(name) ?? FLAGS[name]!.default;

  const name = get('name');
  const initialAdvertisePeerUrls = splitUrls(get('initial-advertise-peer-urls'));
  // etcdmain: the default initial cluster is built from the name and the
  // advertised peer URLs, so `etcd --name m1` alone forms a one-member cluster.
  const initialClusterText =
    get('initial-cluster') || initialAdvertisePeerUrls.map((u) => `${name}=${u}`).join(',');
  const initialCluster = parseInitialCluster(initialClusterText);

  const heartbeatInterval = Number(get('heartbeat-interval'));
  const electionTimeout = Number(get('election-timeout'));
  if (5 * heartbeatInterval > electionTimeout) {
    throw verifyError(
      `--election-timeout[${electionTimeout}ms] should be at least as 5 times as --heartbeat-interval[${heartbeatInterval}ms]`,
    );
  }
  if (electionTimeout > MAX_ELECTION_MS) {
    throw verifyError(
      `--election-timeout[${electionTimeout}ms] is too long, and should be set less than ${MAX_ELECTION_MS}ms`,
    );
  }
  // etcd drops the default advertise URL when the listen URL was chosen, so
  // that a member never advertises an address it does not listen on.
  if (raw.has('listen-client-urls') && !raw.has('advertise-client-urls')) {
    throw verifyError('--advertise-client-urls is required when --listen-client-urls is set explicitly');
  }

  const autoCompaction = autoCompactionConfig(get('auto-compaction-mode'), get('auto-compaction-retention'), env);

  const clientTls = tlsFiles(get('cert-file'), get('key-file'), get('trusted-ca-file'), get('client-cert-auth'));
  const peerTls = tlsFiles(get('peer-cert-file'), get('peer-key-file'), get('peer-trusted-ca-file'), get('peer-client-cert-auth'));
  checkHttpsHasTls(splitUrls(get('listen-peer-urls')), peerTls, splitUrls(get('listen-client-urls')), clientTls);

  const quota = Number(get('quota-backend-bytes'));
  const config: MemberConfig = {
    name,
    dataDir: get('data-dir') || `${name}.etcd`,
    listenClientUrls: splitUrls(get('listen-client-urls')),
    advertiseClientUrls: splitUrls(get('advertise-client-urls')),
    listenPeerUrls: splitUrls(get('listen-peer-urls')),
    initialAdvertisePeerUrls,
    initialCluster,
    initialClusterState: get('initial-cluster-state') as 'new' | 'existing',
    initialClusterToken: get('initial-cluster-token'),
    heartbeatInterval,
    electionTimeout,
    snapshotCount: Number(get('snapshot-count')),
    quotaBackendBytes: quota <= 0 ? DEFAULT_QUOTA_BYTES : quota,
    maxRequestBytes: Number(get('max-request-bytes')),
    maxTxnOps: Number(get('max-txn-ops')),
    watchProgressNotifyInterval: parseGoDurationMs(get('experimental-watch-progress-notify-interval')),
    strictReconfigCheck: /^(1|t|true|TRUE|True|T)$/.test(get('strict-reconfig-check')),
    cors: get('cors').split(','),
    ...(clientTls && { clientTls }),
    ...(peerTls && { peerTls }),
    ...(autoCompaction && { autoCompaction }),
  };
  return { kind: 'run', config, warnings };
}

/**
 * --auto-compaction-mode / --auto-compaction-retention as etcd 3.4 checks
 * them: embed.Config.Validate rejects an unknown mode; parseCompactionRetention
 * (embed.StartEtcd) reads a plain non-negative integer as hours (periodic) or
 * revisions (revision), anything else as a Go duration. Retention 0: off.
 * PILOTHOUSE_AUTO_COMPACTION_INTERVAL_MS (test-only, not etcd's) replaces the
 * revision mode's fixed 5-minute interval.
 */
function autoCompactionConfig(mode: string, retention: string, env: NodeJS.ProcessEnv): AutoCompactionConfig | undefined {
  if (mode !== '' && mode !== 'periodic' && mode !== 'revision') throw verifyError(`unknown auto-compaction-mode "${mode}"`);
  const effectiveMode = mode === 'revision' ? 'revision' : 'periodic';
  // etcd reads an empty retention as "0".
  if (retention === '') return undefined;
  let value: number;
  if (/^[-+]?\d+$/.test(retention) && Number(retention) >= 0) {
    value = effectiveMode === 'revision' ? Number(retention) : Number(retention) * 3_600_000;
  } else {
    const parsed = parseGoDurationStrict(retention);
    if (typeof parsed === 'string') throw new FlagError(`error parsing CompactionRetention: ${parsed}`, 1, false, 'etcdmain: ');
    // A duration in revision mode counts nanoseconds as revisions, as etcd does.
    value = effectiveMode === 'revision' ? Math.round(parsed * 1e6) : parsed;
  }
  if (!(value > 0)) return undefined;
  const interval = Number(env.PILOTHOUSE_AUTO_COMPACTION_INTERVAL_MS);
  return { mode: effectiveMode, retention: value, ...(interval > 0 && { revisionIntervalMs: interval }) };
}


/** etcd's TLSInfo: "empty" (no TLS) when neither the certificate nor the key was given. */
function tlsFiles(certFile: string, keyFile: string, trustedCaFile: string, clientCertAuth: string): TlsFiles | undefined {
  if (certFile === '' && keyFile === '') return undefined;
  return { certFile, keyFile, trustedCaFile, clientCertAuth: /^(1|t|true|TRUE|True|T)$/.test(clientCertAuth) };
}

/**
 * etcd refuses https:// listen URLs without a certificate and key when it
 * opens its listeners (embed.StartEtcd: peers first, then clients), before
 * touching the data dir; its log shows "etcdmain: " and it exits 1.
 */
function checkHttpsHasTls(peerUrls: string[], peerTls: TlsFiles | undefined, clientUrls: string[], clientTls: TlsFiles | undefined): void {
  const https = (u: string) => u.startsWith('https://') || u.startsWith('unixs://');
  const peer = peerUrls.find(https);
  if (peer !== undefined && peerTls === undefined) {
    throw new FlagError(`cannot listen on TLS for ${new URL(peer).host}: KeyFile and CertFile are not presented`, 1, false, 'etcdmain: ');
  }
  const client = clientUrls.find(https);
  if (client !== undefined && clientTls === undefined) {
    throw new FlagError(
      `TLS key/cert (--cert-file, --key-file) must be provided for client url ${client} with HTTPS scheme`,
      1,
      false,
      'etcdmain: ',
    );
  }
}



function verifyError(message: string): FlagError {
  return new FlagError(`error verifying flags, ${message}. See 'etcd --help'.`, 1, false, 'etcdmain: ');
}

/** Validates one value; `where` is "flag -name" or the env variable's name. */
function checkValue(spec: FlagSpec, value: string, where: string, exitCode: number, fromEnv = false): void {
  const problem = valueProblem(spec, value);
  if (problem === undefined) return;
  const message = `invalid value "${value}" for ${where}: ${problem}`;
  throw fromEnv ? verifyError(message) : new FlagError(message, exitCode, true);
}

function valueProblem(spec: FlagSpec, value: string): string | undefined {
  switch (spec.kind) {
    case 'string':
      return undefined;
    case 'bool':
      return /^(1|0|t|f|true|false|TRUE|FALSE|True|False|T|F)$/.test(value) ? undefined : 'parse error';
    case 'uint':
      return /^\d+$/.test(value) && Number(value) <= Number.MAX_SAFE_INTEGER ? undefined : 'parse error';
    case 'duration':
      return parseGoDurationMs(value) === undefined ? 'parse error' : undefined;
    case 'int64':
      return /^-?\d+$/.test(value) && Math.abs(Number(value)) <= Number.MAX_SAFE_INTEGER ? undefined : 'parse error';
    case 'state':
      return value === 'new' || value === 'existing' ? undefined : 'invalid value';
    case 'origins':
      // etcd's flags.NewUniqueURLsWithExceptions("*"): "*" alone, or URLs.
      if (value === '*') return undefined;
      for (const u of value.split(',')) {
        const problem = urlProblem(u);
        if (problem) return problem;
      }
      return undefined;
    case 'urls':
      for (const u of splitUrls(value)) {
        const problem = urlProblem(u);
        if (problem) return problem;
      }
      return undefined;
  }
}

/** etcd's types.NewURLs rules: scheme, host:port, no path. */
export function urlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `URL scheme must be http, https, unix, or unixs: ${text}`;
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (!['http', 'https', 'unix', 'unixs'].includes(scheme)) {
    return `URL scheme must be http, https, unix, or unixs: ${text}`;
  }
  // WHATWG URL drops a scheme's default port (":80" reads as ''); Go keeps it.
  if ((scheme === 'http' || scheme === 'https') && url.port === '' && !/^[^:]+:\/\/[^/?#]*:\d+(?:[/?#]|$)/.test(text)) {
    return `URL address does not have the form "host:port": ${text}`;
  }
  if (url.pathname !== '' && url.pathname !== '/') return `URL must not contain a path: ${text}`;
  return undefined;
}

function splitUrls(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** "m1=http://a:2380,m1=http://b:2380,m2=..." → name → URLs, in order. */
export function parseInitialCluster(text: string): Map<string, string[]> {
  const cluster = new Map<string, string[]>();
  for (const part of splitUrls(text)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw verifyError(`${part} is not a valid key=value pair`);
    const name = part.slice(0, eq);
    const url = part.slice(eq + 1);
    const problem = urlProblem(url);
    if (problem) throw verifyError(problem);
    const urls = cluster.get(name) ?? [];
    urls.push(url);
    cluster.set(name, urls);
  }
  return cluster;
}

/** Help text in etcd's shape: the flags this member understands, with defaults. */
export function etcdUsage(): string {
  const lines = ['Usage:', '', '  pilothouse etcd [flags]', '    Start an etcd-compatible member (etcd 3.4 flags).', '', 'Flags:'];
  for (const [name, spec] of Object.entries(FLAGS)) {
    const def =
      name === 'data-dir' ? '${name}.etcd' : name === 'initial-cluster' ? 'default=http://localhost:2380' : spec.default;
    lines.push(`  --${name} '${def}'${spec.ignored ? '  (accepted, no effect)' : ''}`);
  }
  lines.push('', 'Every flag can also be set as ETCD_<FLAG> (e.g. ETCD_NAME=m1).');
  return lines.join('\n');
}
