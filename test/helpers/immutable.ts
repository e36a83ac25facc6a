/**
 * The immutable attribute (`chattr +i`), on the real file system under the test's temporary
 * directory: a file no one may rename, replace or remove, root included, which no permission check
 * before a write can see. Needs CAP_LINUX_IMMUTABLE (root) and a file system with attributes
 * (ext4, xfs, btrfs, tmpfs since Linux 6.0); the test fails, never skips, where either is missing.
 */
import { spawnSync } from 'node:child_process';

export function setImmutable(file: string, on: boolean): void {
  const r = spawnSync('chattr', [on ? '+i' : '-i', file], { encoding: 'utf8' });
  if (r.status !== 0) {
    throw new Error(
      `chattr ${on ? '+i' : '-i'} ${file} failed (${r.error?.message ?? r.stderr.trim()}): ` +
        'these tests need root (CAP_LINUX_IMMUTABLE) and a file system with attributes under $TMPDIR',
    );
  }
}
