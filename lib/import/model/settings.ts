/**
 * The ClusterSet-wide settings the import writes besides what it reads object by object: the token
 * Secret name most members share (`secrets.memberTokenSecretName`, identities.ts), and the
 * reconciler's warm standby (`reconciler.waitForAntreaLeader`), since Antrea's own leader still
 * runs when the model is first synced. The git repository Argo CD or Flux reads (`delivery`) is
 * nowhere in the cluster: the model's header comment asks for it (index.ts). Pure.
 */
import { DEFAULT_MEMBER_TOKEN_SECRET } from '../../names';
import type { Notes } from '../findings';

export function secretsSetting(
  model: Record<string, unknown>,
  notes: Notes,
  memberTokenSecretName: string,
): void {
  if (memberTokenSecretName !== DEFAULT_MEMBER_TOKEN_SECRET) {
    model.secrets = { memberTokenSecretName };
    notes.comment(
      'secrets.memberTokenSecretName',
      "The token Secret name most members' ClusterSets name (leaders[0].secret); members that name another carry memberIdentity.memberTokenSecret.",
    );
  }
}

export function reconcilerSetting(model: Record<string, unknown>, notes: Notes): void {
  // Antrea's leader still runs when the model is first synced: the reconciler waits in standby.
  model.reconciler = { waitForAntreaLeader: true };
  notes.comment(
    'reconciler.waitForAntreaLeader',
    "Warm standby: the reconciler leads only once Antrea's leader controller is gone (its Deployment at zero, its webhook configurations deleted; docs/import.md). Set it false in a reviewed change after the cut-over.",
  );
}
