// Go's time.Duration.String(), for messages the kubelet prints with %v
// ("Successfully pulled image "nginx" in 1.234s (1.234s including waiting)").

export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  const neg = ms < 0;
  let rest = Math.abs(ms);
  let out: string;
  if (rest < 1) {
    out = `${trim((rest * 1000).toFixed(3))}µs`;
  } else if (rest < 1000) {
    out = `${trim(rest.toFixed(6))}ms`;
  } else {
    const h = Math.floor(rest / 3_600_000);
    rest -= h * 3_600_000;
    const m = Math.floor(rest / 60_000);
    rest -= m * 60_000;
    const s = `${trim((rest / 1000).toFixed(9))}s`;
    out = h > 0 ? `${h}h${m}m${s}` : m > 0 ? `${m}m${s}` : s;
  }
  return neg ? `-${out}` : out;
}

function trim(n: string): string {
  return n.includes('.') ? n.replace(/0+$/, '').replace(/\.$/, '') : n;
}
