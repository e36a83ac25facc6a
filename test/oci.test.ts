// test/kube/oci.ts: the OCI image archives the test node imports (pause, testpod). GNU tar reads
// them back; every blob is stored under its own digest and the manifest names the config and the
// layer by theirs. (test/e2e/node.test.ts proves containerd imports and runs them.)

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tar, writeImageArchive } from './kube/oci';

const Oci = suite('oci image archive');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oci-test-'));
const sha = (b: Buffer) => 'sha256:' + createHash('sha256').update(b).digest('hex');
const untar = (archive: string, member: string) =>
  execFileSync('tar', ['-xOf', archive, member], { maxBuffer: 64 << 20 });

const program = Buffer.from('#!/bin/true\n'.repeat(100));
const spec = {
  name: 'localhost/clusterset/example:1',
  files: [
    { path: 'example', data: program },
    { path: 'etc/config/settings.json', data: Buffer.from('{}\n'), mode: 0o644 },
  ],
  entrypoint: ['/example'],
  user: '65532:65532',
};

Oci('GIVEN files WHEN written THEN tar lists the OCI layout with blobs named by their digests', () => {
  const archive = path.join(dir, 'a.tar');
  const info = writeImageArchive(archive, spec);
  const names = execFileSync('tar', ['-tf', archive], { encoding: 'utf8' }).trim().split('\n');
  assert.equal(names.slice(0, 4), ['oci-layout', 'index.json', 'blobs/', 'blobs/sha256/']);
  const blobs = names.filter((n) => /^blobs\/sha256\/[0-9a-f]{64}$/.test(n));
  assert.is(blobs.length, 3);
  for (const b of blobs) assert.is(sha(untar(archive, b)), `sha256:${b.slice('blobs/sha256/'.length)}`);

  const index = JSON.parse(untar(archive, 'index.json').toString()) as {
    manifests: { digest: string; size: number; annotations: Record<string, string> }[];
  };
  assert.is(index.manifests.length, 1);
  const m = index.manifests[0]!;
  assert.is(m.digest, info.manifestDigest);
  assert.equal(m.annotations, {
    'io.containerd.image.name': 'localhost/clusterset/example:1',
    'org.opencontainers.image.ref.name': '1',
  });
  const manifestBytes = untar(archive, `blobs/sha256/${m.digest.slice(7)}`);
  assert.is(manifestBytes.length, m.size);
  const manifest = JSON.parse(manifestBytes.toString()) as {
    config: { digest: string; size: number };
    layers: { digest: string; size: number; mediaType: string }[];
  };
  assert.is(manifest.config.digest, info.configDigest);
  const config = JSON.parse(untar(archive, `blobs/sha256/${manifest.config.digest.slice(7)}`).toString()) as {
    config: { Entrypoint: string[]; User: string };
    rootfs: { diff_ids: string[] };
  };
  assert.equal(config.config.Entrypoint, ['/example']);
  assert.is(config.config.User, '65532:65532');
  // Uncompressed layer: its diff ID is its digest.
  assert.equal(config.rootfs.diff_ids, [manifest.layers[0]!.digest]);
  assert.is(manifest.layers[0]!.mediaType, 'application/vnd.oci.image.layer.v1.tar');
});

Oci('GIVEN the layer THEN it holds the files with their modes, parent directories first', () => {
  const archive = path.join(dir, 'b.tar');
  writeImageArchive(archive, spec);
  const index = JSON.parse(untar(archive, 'index.json').toString()) as { manifests: { digest: string }[] };
  const manifest = JSON.parse(
    untar(archive, `blobs/sha256/${index.manifests[0]!.digest.slice(7)}`).toString(),
  ) as {
    layers: { digest: string }[];
  };
  const layer = path.join(dir, 'layer.tar');
  fs.writeFileSync(layer, untar(archive, `blobs/sha256/${manifest.layers[0]!.digest.slice(7)}`));
  const listing = execFileSync('tar', ['-tvf', layer, '--numeric-owner'], { encoding: 'utf8' })
    .trim()
    .split('\n');
  assert.equal(
    listing.map((l) => {
      const f = l.split(/\s+/);
      return `${f[0]} ${f[1]} ${f[5]}`;
    }),
    [
      '-rwxr-xr-x 0/0 example',
      'drwxr-xr-x 0/0 etc/',
      'drwxr-xr-x 0/0 etc/config/',
      '-rw-r--r-- 0/0 etc/config/settings.json',
    ],
  );
  assert.ok(untar(layer, 'example').equals(program));
});

Oci('GIVEN the same files twice THEN the archives are byte for byte the same', () => {
  writeImageArchive(path.join(dir, 'c1.tar'), spec);
  writeImageArchive(path.join(dir, 'c2.tar'), spec);
  assert.ok(fs.readFileSync(path.join(dir, 'c1.tar')).equals(fs.readFileSync(path.join(dir, 'c2.tar'))));
});

Oci('GIVEN a path over 100 bytes THEN it is split into the ustar prefix and name', () => {
  const long = `${'d'.repeat(60)}/${'e'.repeat(60)}/file`;
  const file = path.join(dir, 'long.tar');
  fs.writeFileSync(file, tar([{ name: long, data: Buffer.from('x'), mode: 0o644 }]));
  assert.equal(execFileSync('tar', ['-tf', file], { encoding: 'utf8' }).trim().split('\n'), [long]);
});

Oci('fails on an image name without a tag, or a path with a leading slash', () => {
  assert.throws(
    () => writeImageArchive(path.join(dir, 'x.tar'), { ...spec, name: 'localhost/clusterset/example' }),
    /needs a tag/,
  );
  assert.throws(
    () => writeImageArchive(path.join(dir, 'x.tar'), { ...spec, files: [{ path: '/abs', data: program }] }),
    /relative/,
  );
});

Oci.after(() => fs.rmSync(dir, { recursive: true, force: true }));

Oci.run();
