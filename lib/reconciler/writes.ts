/**
 * The reconciler's writes: each action of desired/ made into one request to the leader's API server,
 * with the reconciler's field manager, what the server returns put into the cache it came from at
 * once, each write counted by action and result, and the ones people follow logged. It also keeps
 * what the server stored for each import spec it sent (`sameSpec` reads it), and hands a label ID
 * whose import was not written back to what the imports hold.
 */
import { RECONCILER_FIELD_MANAGER } from '../names';
import type { Caches } from './caches';
import type { Action, ImportSpec } from './desired/outcome';
import type { Informer } from './informer';
import { isApiError, type KubeClient } from './kube';
import type { LabelIdAllocator } from './label-ids';
import type { Logger } from './log';
import type { Metrics } from './metrics';
import {
  MC_API_VERSION,
  specDigest,
  type CachedAnnounce,
  type CachedClusterSet,
  type CachedExport,
  type CachedImport,
} from './objects';

export interface WriterOptions {
  readonly client: KubeClient;
  readonly log: Logger;
  readonly metrics: Metrics;
  /** The leader namespace. */
  readonly ns: string;
  /** `/apis/<group>/<version>/namespaces/<leader namespace>`. */
  readonly base: string;
  /** The leader ClusterSets' collection path (see the Controller's). */
  readonly clusterSetsPath: string;
  /** Where what a write returns goes. */
  readonly caches: Pick<Caches, 'exports' | 'imports' | 'announces' | 'clusterSets'>;
  readonly allocator: LabelIdAllocator;
}

export class Writer {
  private readonly ns: string;
  private readonly base: string;
  private readonly clusterSetsPath: string;
  private readonly exports: Informer<CachedExport>;
  private readonly imports: Informer<CachedImport>;
  private readonly announces: Informer<CachedAnnounce>;
  private readonly clusterSets: Informer<CachedClusterSet>;
  private readonly allocator: LabelIdAllocator;
  /** Import name → digest of the spec last sent, and of what the server stored for it. */
  private readonly applied = new Map<string, { desired: string; stored: string }>();

  constructor(private readonly o: WriterOptions) {
    this.ns = o.ns;
    this.base = o.base;
    this.clusterSetsPath = o.clusterSetsPath;
    this.exports = o.caches.exports;
    this.imports = o.caches.imports;
    this.announces = o.caches.announces;
    this.clusterSets = o.caches.clusterSets;
    this.allocator = o.allocator;
  }

  readonly sameSpec = (existing: CachedImport, desired: ImportSpec): boolean => {
    const d = specDigest(desired);
    if (existing.specDigest === d) return true;
    const a = this.applied.get(existing.name);
    return a !== undefined && a.desired === d && a.stored === existing.specDigest;
  };

  /** An import is gone: what was sent for it no longer says what the server stores. */
  forget(name: string): void {
    this.applied.delete(name);
  }

  /** An allocation whose import was not written: the hash holds what its import (if any) holds. */
  private resyncClaim(hash: string): void {
    this.allocator.forget(hash);
    const i = this.imports.store.get(hash);
    if (i?.kind === 'LabelIdentity') this.allocator.adopt(hash, i.labelId, i.creationTimestamp);
  }

  async apply(key: string, a: Action, refused: ReadonlyMap<string, string>): Promise<void> {
    const c = this.o.client;
    const fm = `fieldManager=${RECONCILER_FIELD_MANAGER}`;
    const count = (result: string) => this.o.metrics.writes.inc({ action: a.op, result });
    try {
      switch (a.op) {
        case 'createImport':
        case 'replaceImport': {
          let stored: Record<string, unknown>;
          try {
            stored =
              a.op === 'createImport'
                ? await c.request('POST', `${this.base}/resourceimports?${fm}`, {
                    apiVersion: MC_API_VERSION,
                    kind: 'ResourceImport',
                    metadata: { name: a.name, namespace: this.ns },
                    spec: a.spec,
                  })
                : await c.request(
                    'PATCH',
                    `${this.base}/resourceimports/${a.name}?${fm}`,
                    [
                      { op: 'test', path: '/metadata/uid', value: a.uid },
                      { op: 'replace', path: '/spec', value: a.spec },
                    ],
                    { patch: 'json' },
                  );
          } catch (e) {
            if (a.spec.kind === 'LabelIdentity') this.resyncClaim(a.name);
            throw e;
          }
          const cached = this.imports.upsert(stored);
          this.applied.set(a.name, { desired: specDigest(a.spec), stored: cached.specDigest });
          this.o.log.debug(a.op === 'createImport' ? 'import created' : 'import updated', {
            import: a.name,
            key,
          });
          break;
        }
        case 'deleteImport':
          try {
            await c.request('DELETE', `${this.base}/resourceimports/${a.name}`, {
              apiVersion: 'v1',
              kind: 'DeleteOptions',
              preconditions: { uid: a.uid },
            });
          } catch (e) {
            if (!isApiError(e, 404)) throw e;
          }
          this.imports.drop(a.name);
          this.o.log.debug('import deleted', { import: a.name, key });
          break;
        case 'importStatus':
          try {
            const stored = await c.request(
              'PATCH',
              `${this.base}/resourceimports/${a.name}/status?${fm}`,
              { metadata: { uid: a.uid }, status: { clusterStatuses: a.clusterStatuses } },
              { patch: 'merge' },
            );
            this.imports.upsert(stored);
          } catch (e) {
            if (!isApiError(e, 404, 409)) throw e; // gone, or replaced by a new object with its own event
          }
          break;
        case 'exportStatus':
          try {
            const stored = await c.request(
              'PATCH',
              `${this.base}/resourceexports/${a.name}/status?${fm}`,
              { metadata: { uid: a.uid }, status: { conditions: [a.condition] } },
              { patch: 'merge' },
            );
            this.exports.upsert(stored);
          } catch (e) {
            if (!isApiError(e, 404, 409)) throw e; // gone, or replaced by a new object with its own event
          }
          if (a.condition.type === 'Failure') {
            const kind = this.exports.store.get(a.name)?.spec?.kind;
            this.o.metrics.refusals.inc({ kind: typeof kind === 'string' ? kind : 'unknown' });
            this.o.log.warn('export refused', {
              export: a.name,
              why: refused.get(a.name) ?? a.condition.message,
            });
          }
          break;
        case 'releaseExport': {
          const stored = await c.request<Record<string, unknown>>(
            'PATCH',
            `${this.base}/resourceexports/${a.name}?${fm}`,
            [
              { op: 'test', path: '/metadata/resourceVersion', value: a.resourceVersion },
              { op: 'replace', path: '/metadata/finalizers', value: a.finalizers },
            ],
            { patch: 'json' },
          );
          if (a.finalizers.length === 0) this.exports.drop(a.name);
          else this.exports.upsert(stored);
          this.o.log.debug('export finalizer removed', { export: a.name, key });
          break;
        }
        case 'deleteExport':
        case 'deleteAnnounce': {
          const resource = a.op === 'deleteExport' ? 'resourceexports' : 'memberclusterannounces';
          const informer: Pick<Informer<CachedExport | CachedAnnounce>, 'drop' | 'upsert'> = a.op ===
          'deleteExport'
            ? this.exports
            : this.announces;
          try {
            const r = await c.request<Record<string, unknown>>(
              'DELETE',
              `${this.base}/${resource}/${a.name}`,
              {
                apiVersion: 'v1',
                kind: 'DeleteOptions',
                preconditions: { uid: a.uid },
              },
            );
            if (r.kind === 'Status') informer.drop(a.name);
            else informer.upsert(r);
          } catch (e) {
            if (!isApiError(e, 404)) throw e;
            informer.drop(a.name);
          }
          this.o.log.info(
            a.op === 'deleteExport' ? 'export of a retired member deleted' : 'silent member retired',
            {
              [a.op === 'deleteExport' ? 'export' : 'announce']: a.name,
              key,
            },
          );
          break;
        }
        case 'announceFinalizers': {
          const stored = await c.request<Record<string, unknown>>(
            'PATCH',
            `${this.base}/memberclusterannounces/${a.name}?${fm}`,
            [
              { op: 'test', path: '/metadata/resourceVersion', value: a.resourceVersion },
              { op: 'replace', path: '/metadata/finalizers', value: a.finalizers },
            ],
            { patch: 'json' },
          );
          const md = stored.metadata as { deletionTimestamp?: string };
          if (md.deletionTimestamp && a.finalizers.length === 0) this.announces.drop(a.name);
          else this.announces.upsert(stored);
          break;
        }
        case 'clusterSetStatus': {
          const stored = await c.request<Record<string, unknown>>(
            'PATCH',
            `${this.clusterSetsPath}/${a.name}/status?${fm}`,
            { status: a.status },
            { patch: 'merge' },
          );
          this.clusterSets.upsert(stored);
          break;
        }
      }
      count('ok');
    } catch (e) {
      count(isApiError(e) ? String(e.code) : 'error');
      throw e;
    }
  }
}
