// kube-apiserver's authentication flags (pkg/kubeapiserver/options/authentication.go):
//   --token-auth-file                       static bearer tokens (CSV)
//   --service-account-key-file              public keys that verify SA tokens (repeatable; default: --tls-private-key-file)
//   --service-account-signing-key-file      private key that signs TokenRequest tokens
//   --service-account-issuer                issuer(s) accepted; the first one issues (repeatable)
//   --api-audiences                         audiences of this API server (default: the issuers)
//   --service-account-max-token-expiration  longest token TokenRequest issues
//   --service-account-extend-token-expiration  pod-bound 3607 s tokens live a year, warning after the hour
//   --anonymous-auth                        system:anonymous for requests without credentials
// Validation and the AlwaysAllow rule (anonymous is switched off, with kube's
// warning) follow kube. Unlike kube-apiserver the issuer and signing key are
// optional: without them the server simply has no service-account tokens.

import { InvalidArgumentError } from 'commander';
import { applyAuthentication } from './authenticationPlugins';
import { ANONYMOUS_WITH_ALWAYS_ALLOW_WARNING } from '../authn/anonymous';
import type { ApiServerOptionGroup } from './optionGroup';
import { goDurationMs } from './goDurationFlag';

/** strconv.ParseBool, with pflag's message. */
function goBool(flag: string) {
  return (v: string): boolean => {
    if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
    if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
    throw new InvalidArgumentError(`invalid argument ${JSON.stringify(v)} for "${flag}" flag: strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
  };
}

const repeat = (v: string, prev: string[] | undefined): string[] => [...(prev ?? []), v];
/** pflag StringSlice: comma-separated and repeatable. */
const commaList = (v: string, prev: string[] | undefined): string[] => [...(prev ?? []), ...v.split(',').map((s) => s.trim()).filter((s) => s !== '')];

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function list(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : [];
}

/** klog's header for a warning line: W<mmdd> <hh:mm:ss.uuuuuu> <pid> <file:line>] */
function klogWarning(msg: string, now = new Date()): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const stamp = `${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())} ${p(now.getUTCHours())}:${p(now.getUTCMinutes())}:${p(now.getUTCSeconds())}.${p(now.getUTCMilliseconds() * 1000, 6)}`;
  return `W${stamp} ${String(process.pid).padStart(7)} authentication.go:520] ${msg}`;
}

export const authenticationOptions: ApiServerOptionGroup = {
  name: 'authentication',
  register(cmd) {
    cmd
      .option('--token-auth-file <file>', 'If set, the file that will be used to secure the secure port of the API server via token authentication.')
      .option('--service-account-key-file <file>', 'File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. Can be given multiple times.', repeat)
      .option('--service-account-signing-key-file <file>', 'Path to the file that contains the current private key of the service account token issuer.')
      .option('--service-account-issuer <issuer>', 'Identifier of the service account token issuer. Can be given multiple times; the first one issues, all are accepted.', repeat)
      .option('--api-audiences <audiences>', 'Identifiers of the API. The service account token authenticator will validate that tokens used against the API are bound to at least one of these audiences.', commaList)
      .option('--service-account-max-token-expiration <duration>', 'The maximum validity duration of a token created by the service account token issuer.')
      .option('--service-account-extend-token-expiration [bool]', 'Turns on projected service account expiration extension during token generation.', goBool('--service-account-extend-token-expiration'), true)
      .option('--anonymous-auth [bool]', 'Enables anonymous requests to the secure port of the API server. Anonymous requests have a username of system:anonymous, and a group name of system:unauthenticated.', goBool('--anonymous-auth'), true);
  },
  apply(flags, cfg) {
    const errs: string[] = [];
    const issuers = list(flags.serviceAccountIssuer);
    const seen = new Set<string>();
    for (const issuer of issuers) {
      if (issuer.includes(':')) {
        try {
          new URL(issuer);
        } catch (err) {
          errs.push(`service-account-issuer contained a ':' but was not a valid URL: ${(err as Error).message}`);
        }
      }
      if (seen.has(issuer)) errs.push(`service-account-issuer ${JSON.stringify(issuer)} is already specified`);
      seen.add(issuer);
    }
    const signingKeyFile = str(flags.serviceAccountSigningKeyFile);
    if (signingKeyFile && issuers.length === 0) errs.push('service-account-issuer is a required flag');
    let maxSeconds = 0;
    const maxText = str(flags.serviceAccountMaxTokenExpiration);
    if (maxText) {
      try {
        maxSeconds = goDurationMs(maxText) / 1000;
      } catch (err) {
        errs.push(`--service-account-max-token-expiration: ${(err as Error).message}`);
      }
      if (maxSeconds !== 0 && (maxSeconds < 3600 || maxSeconds > 2 ** 32)) errs.push('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds');
    }
    if (errs.length) throw new Error(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);

    // kube: the serving key verifies tokens when no key file is named.
    let keyFiles = list(flags.serviceAccountKeyFile);
    if (keyFiles.length === 0 && str(flags.tlsPrivateKeyFile)) keyFiles = [str(flags.tlsPrivateKeyFile)!];

    let anonymous = flags.anonymousAuth !== false;
    const modes = String(flags.authorizationMode ?? 'AlwaysAllow').split(',').map((m) => m.trim());
    if (anonymous && modes.includes('AlwaysAllow')) {
      process.stderr.write(`${klogWarning(ANONYMOUS_WITH_ALWAYS_ALLOW_WARNING)}\n`);
      anonymous = false;
    }
    applyAuthentication(
      {
        tokenAuthFile: str(flags.tokenAuthFile),
        serviceAccountKeyFiles: issuers.length ? keyFiles : [],
        serviceAccountSigningKeyFile: signingKeyFile,
        serviceAccountIssuers: issuers,
        apiAudiences: list(flags.apiAudiences),
        maxTokenExpirationSeconds: Math.floor(maxSeconds),
        extendTokenExpiration: flags.serviceAccountExtendTokenExpiration !== false,
        anonymous,
      },
      cfg,
    );
  },
};
