/**
 * Label identities (keys `label/<hash16>`): one import per normalized label, holding a unique ID
 * from the edge's allocator (label-ids.ts) for as long as the import exists; a refused export gets
 * its reason in its status, where Antrea's leader writes none.
 */
import { labelIdentityExportName, labelIdentityHash } from '../../names';
import type { ReconcilerConfig } from '../../reconciler-config';
import { normalizedLabelProblem } from '../normalized-label';
import type { CachedExport, CachedImport } from '../objects';
import { isObject, memberProblem, nameOrder, refusals, releaseAction, statusAction } from './exports';
import { foreignImport, importActions } from './imports';
import type { Action, ImportSpec, Outcome, SameSpec } from './outcome';

/** The largest label identity ID: 24 bits of VNI, 16777215 being "unknown" (Antrea). */
export const MAX_LABEL_ID = 16777214;

/** The edge's ID allocator, as the label reconcile uses it. */
export interface LabelIds {
  /** The label hash that holds `id` (the oldest import, if two claim it). */
  ownerOf(id: number): string | undefined;
  /** A fresh ID for `hash`, never handed out before in this cycle of 1..MAX_LABEL_ID. */
  allocate(hash: string): number;
}

export interface LabelInputs {
  readonly config: ReconcilerConfig;
  readonly hash: string;
  /** Every LabelIdentity export named `<id>-<hash>`. */
  readonly exports: readonly CachedExport[];
  readonly existing: CachedImport | undefined;
  readonly ids: LabelIds;
  readonly sameSpec: SameSpec;
  readonly now: string;
}

function labelProblem(config: ReconcilerConfig, hash: string, e: CachedExport): string | undefined {
  const s = e.spec!;
  const member = memberProblem(config, s.clusterID);
  if (member) return member;
  const id = s.clusterID as string;
  if (e.name !== labelIdentityExportName(id, hash))
    return `a LabelIdentity export of cluster ${id} must be named ${labelIdentityExportName(id, hash)}, not ${e.name}`;
  const li = isObject(s.labelIdentity) ? s.labelIdentity : undefined;
  if (!li || typeof li.normalizedLabel !== 'string') return 'spec.labelIdentity.normalizedLabel is missing';
  const actual = labelIdentityHash(li.normalizedLabel);
  if (actual !== hash) return `the normalized label hashes to ${actual}, not ${hash}`;
  // Antrea's leader relays any label, and antrea-controller in every member misreads a malformed
  // one or panics on it (antrea-io/antrea#8385): refused here, it never gets an ID or an import.
  const form = normalizedLabelProblem(li.normalizedLabel);
  if (form) return `spec.labelIdentity.normalizedLabel is not a label as Antrea's member writes it: ${form}`;
  return undefined;
}

export function reconcileLabel(input: LabelInputs): Outcome {
  const inp = { ...input, exports: [...input.exports].sort(nameOrder) };
  const foreign = foreignImport(inp.existing, 'LabelIdentity');
  const why = new Map<string, string | undefined>();
  for (const e of inp.exports) why.set(e.name, labelProblem(inp.config, inp.hash, e) ?? foreign);
  const labels = inp.exports
    .filter((e) => !e.deleting && why.get(e.name) === undefined)
    .map((e) => (e.spec!.labelIdentity as { normalizedLabel: string }).normalizedLabel)
    .sort();
  const actions: Action[] = [];
  if (!foreign) {
    let desired: ImportSpec | undefined;
    const label = labels[0];
    if (label !== undefined) {
      const have = inp.existing;
      const keep =
        have !== undefined &&
        !have.deleting &&
        have.label === label &&
        have.labelId !== undefined &&
        Number.isInteger(have.labelId) &&
        have.labelId >= 1 &&
        have.labelId <= MAX_LABEL_ID &&
        inp.ids.ownerOf(have.labelId) === inp.hash;
      const id = keep ? have.labelId! : have?.deleting ? undefined : inp.ids.allocate(inp.hash);
      if (id !== undefined) desired = { kind: 'LabelIdentity', labelIdentity: { label, id } };
    }
    if (desired !== undefined || !inp.existing?.deleting)
      actions.push(...importActions(inp.hash, inp.existing, desired, inp.sameSpec));
  }
  // Antrea's leader writes no status on label exports. The reconciler refuses some (another
  // cluster's, a name or hash that does not match, a malformed label), and the export's status is
  // the one place in the leader where the member's owner sees why the label got no ID and stretched
  // policies never select those Pods; so a refusal is written, as for Service exports, and cleared
  // once the export is accepted. An accepted export gets no status, as with Antrea.
  for (const e of inp.exports) actions.push(...statusAction(e, why.get(e.name), inp.now, true));
  for (const e of inp.exports) actions.push(...releaseAction(e));
  return { actions, refused: refusals(inp.exports, why) };
}
