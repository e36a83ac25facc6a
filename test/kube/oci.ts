// OCI image archives made here, from files on disk, for the test node (no registry is reachable, and
// no container engine is needed for a FROM-scratch image): one uncompressed layer, an image config,
// a manifest and an index in an OCI image layout, in a tar that `ctr images import` reads. The index
// names the image with the `io.containerd.image.name` annotation (the full reference containerd
// stores) and `org.opencontainers.image.ref.name` (the tag). Everything is deterministic: the same
// files give the same digests.

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';

export interface ImageFile {
  /** Path inside the image, without a leading slash, e.g. 'pause'. */
  path: string;
  /** Contents, or the host file to read them from. */
  data: Buffer | { from: string };
  /** Default 0o755. */
  mode?: number;
}

export interface ImageSpec {
  /** Full reference, e.g. 'localhost/clusterset/pause:1'. */
  name: string;
  files: ImageFile[];
  entrypoint: string[];
  cmd?: string[];
  /** e.g. '65532:65532'. */
  user?: string;
  env?: string[];
}

export interface ImageArchive {
  name: string;
  /** Digest of the image manifest (what the kubelet reports as the image ID's digest). */
  manifestDigest: string;
  /** Digest of the image config (containerd's image ID). */
  configDigest: string;
  bytes: number;
}

const BLOCK = 512;

/** One ustar header (name up to 100 bytes, or split into prefix/name up to 255). */
function tarHeader(name: string, size: number, mode: number, type: '0' | '5'): Buffer {
  const h = Buffer.alloc(BLOCK);
  let prefix = '';
  let base = name;
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', 155);
    if (cut <= 0 || Buffer.byteLength(name.slice(cut + 1)) > 100)
      throw new Error(`tar: name too long: ${name}`);
    prefix = name.slice(0, cut);
    base = name.slice(cut + 1);
  }
  const octal = (n: number, width: number) => n.toString(8).padStart(width - 1, '0') + '\0';
  h.write(base, 0, 100, 'utf8');
  h.write(octal(mode, 8), 100, 8, 'ascii');
  h.write(octal(0, 8), 108, 8, 'ascii'); // uid
  h.write(octal(0, 8), 116, 8, 'ascii'); // gid
  h.write(octal(size, 12), 124, 12, 'ascii');
  h.write(octal(0, 12), 136, 12, 'ascii'); // mtime: the epoch, for reproducible digests
  h.write('        ', 148, 8, 'ascii'); // checksum placeholder
  h.write(type, 156, 1, 'ascii');
  h.write('ustar\0', 257, 6, 'ascii');
  h.write('00', 263, 2, 'ascii');
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8, 'ascii');
  return h;
}

interface TarEntry {
  name: string;
  data?: Buffer;
  mode: number;
}

/** A tar archive (ustar) of the entries, directories being those without data. */
export function tar(entries: TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const size = e.data?.length ?? 0;
    parts.push(tarHeader(e.name, size, e.mode, e.data ? '0' : '5'));
    if (e.data) {
      parts.push(e.data);
      const pad = (BLOCK - (size % BLOCK)) % BLOCK;
      if (pad) parts.push(Buffer.alloc(pad));
    }
  }
  parts.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(parts);
}

const sha256 = (b: Buffer) => 'sha256:' + createHash('sha256').update(b).digest('hex');

/** Writes the image as an OCI image layout tar at archivePath. */
export function writeImageArchive(archivePath: string, spec: ImageSpec): ImageArchive {
  const layerEntries: TarEntry[] = [];
  const dirs = new Set<string>();
  for (const f of spec.files) {
    if (f.path.startsWith('/')) throw new Error(`image file paths are relative: ${f.path}`);
    const segs = f.path.split('/');
    for (let i = 1; i < segs.length; i++) {
      const d = segs.slice(0, i).join('/') + '/';
      if (!dirs.has(d)) {
        dirs.add(d);
        layerEntries.push({ name: d, mode: 0o755 });
      }
    }
    const data = Buffer.isBuffer(f.data) ? f.data : fs.readFileSync(f.data.from);
    layerEntries.push({ name: f.path, data, mode: f.mode ?? 0o755 });
  }
  const layer = tar(layerEntries);
  const layerDigest = sha256(layer);
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      config: {
        Entrypoint: spec.entrypoint,
        ...(spec.cmd ? { Cmd: spec.cmd } : {}),
        ...(spec.user ? { User: spec.user } : {}),
        Env: spec.env ?? ['PATH=/'],
        WorkingDir: '/',
      },
      rootfs: { type: 'layers', diff_ids: [layerDigest] },
    }),
  );
  const configDigest = sha256(config);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: {
        mediaType: 'application/vnd.oci.image.config.v1+json',
        digest: configDigest,
        size: config.length,
      },
      layers: [
        { mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: layerDigest, size: layer.length },
      ],
    }),
  );
  const manifestDigest = sha256(manifest);
  const tag = spec.name.slice(spec.name.lastIndexOf(':') + 1);
  if (!/^[^/]+(\/[^/]+)*:[\w][\w.-]{0,127}$/.test(spec.name) || tag.includes('/'))
    throw new Error(`image name needs a tag: ${spec.name}`);
  const index = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.index.v1+json',
      manifests: [
        {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          digest: manifestDigest,
          size: manifest.length,
          platform: { architecture: 'amd64', os: 'linux' },
          annotations: { 'io.containerd.image.name': spec.name, 'org.opencontainers.image.ref.name': tag },
        },
      ],
    }),
  );
  const blob = (d: string) => `blobs/sha256/${d.slice('sha256:'.length)}`;
  const archive = tar([
    { name: 'oci-layout', data: Buffer.from('{"imageLayoutVersion":"1.0.0"}'), mode: 0o644 },
    { name: 'index.json', data: index, mode: 0o644 },
    { name: 'blobs/', mode: 0o755 },
    { name: 'blobs/sha256/', mode: 0o755 },
    { name: blob(configDigest), data: config, mode: 0o644 },
    { name: blob(layerDigest), data: layer, mode: 0o644 },
    { name: blob(manifestDigest), data: manifest, mode: 0o644 },
  ]);
  fs.writeFileSync(archivePath, archive);
  return { name: spec.name, manifestDigest, configDigest, bytes: archive.length };
}
