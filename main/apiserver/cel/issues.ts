// Compile issues rendered as cel-go renders them, which is what kube puts
// after "compilation failed: ":
//
//   ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')
//    | foo.bar
//    | ^
//
// Line and column are 1-based; the caret line repeats the source line with
// every character before the column replaced by '.'.

export interface CelIssue {
  /** Offset into the expression (UTF-16 code units). */
  offset: number;
  message: string;
}

export function formatIssues(expression: string, issues: CelIssue[]): string {
  const sorted = [...issues].sort((a, b) => a.offset - b.offset);
  return sorted.map((i) => formatIssue(expression, i)).join('\n');
}

function formatIssue(expression: string, issue: CelIssue): string {
  const offset = Math.max(0, Math.min(issue.offset, expression.length));
  const before = expression.slice(0, offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const column = offset - lineStart;
  const lineEnd = expression.indexOf('\n', lineStart);
  const sourceLine = expression.slice(lineStart, lineEnd < 0 ? undefined : lineEnd);
  const caret = '.'.repeat(column) + '^';
  return `ERROR: <input>:${line}:${column + 1}: ${issue.message}\n | ${sourceLine}\n | ${caret}`;
}
