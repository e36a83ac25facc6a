// Runs one of the tests' build scripts (test/kube/build.sh, test/flux/build.sh, test/argocd/build.sh,
// test/kustomize/build.sh, test/actionlint/build.sh: each builds with Go once, most through
// go-build.sh beside this file, and caches under .cache/) and returns the last line it prints: the
// directory or binary it made. Its progress goes to this process's stderr; a missing Go (the
// script's exit 127) and any other failure throw, never skip.
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

/** Runs `script` (a path from the repository root); `noGo` is the error thrown when Go is missing. */
export function runBuildScript(script: string, noGo: string): string {
  let out: string;
  try {
    out = execFileSync('bash', [path.join(ROOT, script)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 16 << 20,
    });
  } catch (e) {
    const status = (e as { status?: number }).status;
    if (status === 127) throw new Error(noGo);
    throw new Error(`${script} failed (exit ${String(status)}); see its output above`);
  }
  return out.trim().split('\n').pop() ?? '';
}
