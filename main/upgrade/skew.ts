// The version skew policy of an upgrade, as kubeadm's and etcd's upgrade
// guides state it for their components: one minor version at a time, never
// backwards (a rollback goes through a backup), the controllers never newer
// than the API server, and a target that can read every member's data.
// Pure: the versions come in, the verdicts go out.

export interface SkewCheck {
  ok: boolean;
  message: string;
}

export interface Semver {
  major: number;
  minor: number;
  patch: number;
  /** The pre-release, '' when none. */
  pre: string;
}

export function parseSemver(v: string): Semver | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(v);
  return m ? { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]), pre: m[4] ?? '' } : undefined;
}

/** Semver precedence (a pre-release sorts before its release; pre-releases compare as strings). */
export function compareSemver(a: Semver, b: Semver): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch || (a.pre === b.pre ? 0 : a.pre === '' ? 1 : b.pre === '' ? -1 : a.pre < b.pre ? -1 : 1);
}

export interface SkewInput {
  components: { id: string; kind: 'etcd' | 'apiserver' | 'controllers'; version?: string }[];
  /** The target build; undefined for a reconfiguration on the running build. */
  target?: { version: string; dataFormat: number };
  /** Each member's recorded data format. */
  dataFormats: { member: string; format: number }[];
}

export function checkSkew(input: SkewInput): SkewCheck[] {
  const out: SkewCheck[] = [];
  const known = input.components.flatMap((c) => {
    const v = c.version === undefined ? undefined : parseSemver(c.version);
    return v ? [{ ...c, semver: v }] : [];
  });
  const unknown = input.components.filter((c) => !known.some((k) => k.id === c.id));
  out.push(
    unknown.length === 0
      ? { ok: true, message: `every component's version is known (${input.components.map((c) => `${c.id} ${c.version}`).join(', ')})` }
      : { ok: false, message: `version unknown for ${unknown.map((c) => c.id).join(', ')}: the skew policy cannot be checked` },
  );
  const api = known.find((c) => c.kind === 'apiserver');
  const ctl = known.find((c) => c.kind === 'controllers');
  if (api && ctl && compareSemver(ctl.semver, api.semver) > 0) out.push({ ok: false, message: `the controllers (${ctl.version}) are newer than the API server (${api.version}): upgrade the API server first` });
  const versions = [...new Set(known.map((c) => c.version!))];
  if (versions.length > 1) out.push({ ok: true, message: `the plane is mixed now (${versions.join(', ')}): finishing or rolling back an upgrade` });
  if (!input.target) {
    out.push({ ok: true, message: 'no new build: a reconfiguration of the running one' });
    return out;
  }
  const target = parseSemver(input.target.version);
  if (!target) {
    out.push({ ok: false, message: `the target's version ${input.target.version} is not a semantic version` });
    return out;
  }
  if (known.length > 0) {
    const oldest = known.reduce((a, b) => (compareSemver(a.semver, b.semver) <= 0 ? a : b));
    const newest = known.reduce((a, b) => (compareSemver(a.semver, b.semver) >= 0 ? a : b));
    if (compareSemver(target, newest.semver) < 0) {
      out.push({ ok: false, message: `${input.target.version} is older than ${newest.id}'s ${newest.version}: a rollback after an upgrade finished goes through a backup (pilothouse backup restore)` });
    } else if (target.major !== oldest.semver.major || target.minor - oldest.semver.minor > 1) {
      out.push({ ok: false, message: `${oldest.version} → ${input.target.version} skips a minor version: upgrade one minor version at a time` });
    } else {
      out.push({ ok: true, message: `${oldest.version === newest.version ? oldest.version : `${oldest.version}…${newest.version}`} → ${input.target.version}: within one minor version` });
    }
  }
  const newer = input.dataFormats.filter((d) => d.format > input.target!.dataFormat);
  out.push(
    newer.length === 0
      ? { ok: true, message: `the target reads data format ${input.target.dataFormat}, every member's (${input.dataFormats.map((d) => `${d.member} ${d.format}`).join(', ') || 'none recorded'})` }
      : { ok: false, message: `the target reads data format ${input.target.dataFormat} and older; ${newer.map((d) => `${d.member} is at ${d.format}`).join(', ')}` },
  );
  out.push({ ok: true, message: 'order: the members one at a time (followers first, the leader last), then the API server, then the controllers' });
  return out;
}
