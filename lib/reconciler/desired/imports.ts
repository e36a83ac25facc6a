/**
 * The one import a reconcile owns: created, replaced or deleted so that it holds what is desired, and
 * left alone when an import of another kind already holds its name, as Antrea's leader leaves it.
 */
import type { CachedImport } from '../objects';
import type { Action, ImportSpec, SameSpec } from './outcome';

/** Create, replace or delete one import so that it holds `desired` (or nothing). */
export function importActions(
  name: string,
  existing: CachedImport | undefined,
  desired: ImportSpec | undefined,
  sameSpec: SameSpec,
): Action[] {
  if (desired === undefined)
    return existing && !existing.deleting ? [{ op: 'deleteImport', name, uid: existing.uid }] : [];
  if (existing === undefined) return [{ op: 'createImport', name, spec: desired }];
  if (existing.deleting) return []; // gone soon; the delete event brings the key back
  return sameSpec(existing, desired) ? [] : [{ op: 'replaceImport', name, uid: existing.uid, spec: desired }];
}

/** An existing import of another kind under the name we need: Antrea never overwrites those. */
export function foreignImport(existing: CachedImport | undefined, kind: string): string | undefined {
  return existing && existing.kind !== kind
    ? `ResourceImport ${existing.name} already exists with kind ${existing.kind ?? '(none)'}; it is not the reconciler's to replace`
    : undefined;
}
