/**
 * Git repository URLs as the model names them (`delivery.repoURL`): what the checks, the
 * prerequisites and the rendered delivery objects need to tell apart. Shared below all of them.
 */

/** Whether `url` is an ssh origin: `ssh://…` or the scp-like `user@host:path`. */
export function isSshOrigin(url: string): boolean {
  return url.startsWith('ssh://') || /^[^/@:]+@[^/:]+:/.test(url);
}
