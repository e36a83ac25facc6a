/**
 * The breaking changes of the After merge block: what something outside out/ must follow. A
 * Service's ports that the model changes (each exporter's Service, and the clients of the ports that
 * go), and the end of the reconciler's warm standby of Antrea's leader
 * (`reconciler.waitForAntreaLeader` turned off), which must wait until Antrea's leader is gone.
 */
import {
  ANTREA_LEADER_DEPLOYMENT,
  ANTREA_LEADER_WATCHER_SUFFIX,
  ANTREA_LEADER_WEBHOOKS,
  memberImportName,
} from '../../names';
import { joinAnd } from '../describe';
import type { TreeDiff } from '../tree';
import { at, clusterBundle, isObj, str } from './util';

/** `['http 8080/TCP', 'grpc 9090/TCP']`. */
function portList(v: unknown): string[] {
  const list = Array.isArray(v) ? v.filter(isObj) : [];
  return list.map(
    (p) => `${str(p.name) ? `${String(p.name)} ` : ''}${String(p.port)}/${str(p.protocol) ?? 'TCP'}`,
  );
}

/**
 * The ports of a Service that the change moves: the import follows the model, each exporter's
 * export follows its Service, so the Service in every exporter must change to match, and clients
 * lose the ports that go.
 */
export function servicePortBreaks(
  diff: TreeDiff,
  leader: string | undefined,
  exportersOf: (service: string) => readonly string[],
): string[] {
  const breaking: string[] = [];
  for (const x of clusterBundle(diff, leader)?.objects ?? []) {
    if (
      x.kind !== 'ResourceImport' ||
      x.change !== 'changed' ||
      at(x.after, 'spec', 'kind') !== 'ServiceImport'
    )
      continue;
    const before = portList(at(x.before, 'spec', 'serviceImport', 'spec', 'ports'));
    const after = portList(at(x.after, 'spec', 'serviceImport', 'spec', 'ports'));
    if (before.join() === after.join()) continue;
    const ns = String(at(x.after, 'spec', 'namespace'));
    const name = String(at(x.after, 'spec', 'name'));
    const exporters = exportersOf(`${ns}/${name}`);
    const gone = before.filter((p) => !after.includes(p));
    breaking.push(
      `Service ${ns}/${name}: ports ${before.join(', ')} → ${after.join(', ')}. Change the Service ${exporters.length > 0 ? `in ${joinAnd(exporters)} ` : ''}to match: until it does, the leader refuses its export (ResourceExport condition Failure: its ports differ from the model's) and it brings no endpoints` +
        (gone.length > 0
          ? `. Clients follow too: ${ns}/${memberImportName(name)} in every member no longer serves ${joinAnd(gone)}`
          : ''),
    );
  }
  return breaking;
}

/**
 * `reconciler.waitForAntreaLeader` set false (the warm standby of a cut-over ends): its ClusterRole
 * leaves the leader's bundle. From that sync the reconciler leads whatever runs beside it, and the
 * compiled-imports policy refuses Antrea's leader again: merge only once Antrea's leader is gone.
 */
export function antreaLeaderStandby(diff: TreeDiff, leader: string | undefined): string[] {
  const bundle = diff.bundles.find((b) => b.type === 'cluster' && b.cluster === leader);
  const role = bundle?.objects.find(
    (x) =>
      x.kind === 'ClusterRole' && x.name.endsWith(ANTREA_LEADER_WATCHER_SUFFIX) && x.change === 'removed',
  );
  if (!role) return [];
  const ns = role.name.slice(0, -ANTREA_LEADER_WATCHER_SUFFIX.length);
  return [
    `the reconciler stops waiting for Antrea's leader (reconciler.waitForAntreaLeader off): merge only once Antrea's leader controller is gone from ${leader}, Deployment ${ns}/${ANTREA_LEADER_DEPLOYMENT} at 0 replicas (or deleted) and ${ANTREA_LEADER_WEBHOOKS.mutating} and ${ANTREA_LEADER_WEBHOOKS.validating} deleted, else both write; the sync removes the admission exception that let Antrea's leader write the compiled imports and the reconciler's read of those objects (ClusterRole ${role.name}, its binding and a rule of its Role)`,
  ];
}
