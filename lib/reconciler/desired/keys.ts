/**
 * Keys: which reconcile an object belongs to. `svc/<ns>/<name>` (an Endpoints import and the status
 * of that Service's exports; service.ts), `ci/<id>-clusterinfo` (cluster-info.ts), `label/<hash16>`
 * (label.ts), `member/<id>` (announce finalizer and retirement; member.ts), `export/<name>` (exports
 * no other key owns; stray-export.ts), and `clusterset` (the leader ClusterSet's status;
 * clusterset.ts).
 */
import { announceName, serviceImportName } from '../../names';
import type { CachedExport, CachedImport } from '../objects';

/** Key of the reconcile that owns an export: derived from its spec and name, never its labels. */
export function exportKey(e: CachedExport): string {
  const s = e.spec;
  if (s?.kind === 'Service' || s?.kind === 'Endpoints') {
    if (typeof s.namespace === 'string' && typeof s.name === 'string') return serviceKey(s.namespace, s.name);
  } else if (s?.kind === 'ClusterInfo') {
    return `ci/${e.name}`;
  } else if (s?.kind === 'LabelIdentity') {
    const hash = labelHashOfExportName(e.name);
    if (hash !== undefined) return `label/${hash}`;
  }
  return `export/${e.name}`;
}

/**
 * Key of the reconcile that owns an import: a dynamic one, or a compiled ServiceImport one (whose
 * status the Service's reconcile keeps); undefined for compiled ACNP imports and foreign ones.
 */
export function importKey(i: CachedImport): string | undefined {
  if (i.kind === 'Endpoints' && i.specNamespace !== undefined && i.specName !== undefined)
    return serviceKey(i.specNamespace, i.specName);
  if (
    i.kind === 'ServiceImport' &&
    i.specNamespace !== undefined &&
    i.specName !== undefined &&
    i.name === serviceImportName(i.specNamespace, i.specName)
  )
    return serviceKey(i.specNamespace, i.specName);
  if (i.kind === 'ClusterInfo') return `ci/${i.name}`;
  if (i.kind === 'LabelIdentity') return `label/${i.name}`;
  return undefined;
}

export function serviceKey(namespace: string, name: string): string {
  return `svc/${namespace}/${name}`;
}

export const CLUSTERSET_KEY = 'clusterset';

export function memberKey(clusterId: string): string {
  return `member/${clusterId}`;
}

/** The cluster ID an announce is named for (`member-announce-from-<id>`), if it is so named. */
export function announceClusterId(name: string): string | undefined {
  const prefix = announceName('');
  return name.startsWith(prefix) && name.length > prefix.length ? name.slice(prefix.length) : undefined;
}

/** `<hash16>` of a LabelIdentity export name `<id>-<hash16>` (split at the last '-', as Antrea). */
export function labelHashOfExportName(name: string): string | undefined {
  const i = name.lastIndexOf('-');
  if (i <= 0) return undefined;
  const hash = name.slice(i + 1);
  return /^[0-9a-f]{16}$/.test(hash) ? hash : undefined;
}
