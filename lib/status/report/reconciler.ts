/**
 * The leader's reconciler, as its Lease says: who holds it and how long ago it was renewed. With
 * `reconciler.waitForAntreaLeader` (the warm standby), a reconciler that holds no Lease while
 * Antrea's leader still runs waits for it, as its own standby decision says
 * (reconciler/antrea-leader.ts): not a problem.
 */
import { antreaLeaderRunning, observeDeployment, observePod } from '../../reconciler/antrea-leader';
import { ANTREA_LEADER_DEPLOYMENT, ANTREA_LEADER_POD_SELECTOR, RECONCILER_NAME } from '../../names';
import { findNamed, kindKey, listOf, type ClusterRead, type Obj } from '../live';
import { type Problems, secondsSince } from './problems';
import type { ClusterReport, StatusInput } from './types';

/** The leader's reconciler Lease and, while it waits, what of Antrea's leader still runs. */
export function reconcilerReport(
  inp: StatusInput,
  id: string,
  read: ClusterRead,
  p: Problems,
): NonNullable<ClusterReport['reconciler']> {
  const { plan } = inp;
  const lease = findNamed(listOf(read, kindKey('Lease', plan.leaderNamespace)), RECONCILER_NAME);
  const spec = (lease?.spec as Obj | undefined) ?? {};
  const holder =
    typeof spec.holderIdentity === 'string' && spec.holderIdentity ? spec.holderIdentity : undefined;
  const renewed = secondsSince(inp.nowMs, spec.renewTime);
  const duration = typeof spec.leaseDurationSeconds === 'number' ? spec.leaseDurationSeconds : undefined;
  const healthy = holder !== undefined && renewed !== undefined && renewed <= (duration ?? 15);
  const antrea = findNamed(
    listOf(read, kindKey('Deployment', plan.leaderNamespace)),
    ANTREA_LEADER_DEPLOYMENT,
  );
  const waiting =
    !healthy && plan.reconciler.waitForAntreaLeader
      ? antreaLeaderRunning({
          namespace: plan.leaderNamespace,
          deployment: antrea ? observeDeployment(antrea) : undefined,
          pods: (listOf(read, kindKey('Pod', plan.leaderNamespace, ANTREA_LEADER_POD_SELECTOR)) ?? []).map(
            observePod,
          ),
          mutatingWebhook: false,
          validatingWebhook: false,
        })
      : [];
  if (!healthy && waiting.length === 0)
    p.add(
      id,
      holder === undefined
        ? `the reconciler holds no Lease ${plan.leaderNamespace}/${RECONCILER_NAME}: is it running?${plan.reconciler.waitForAntreaLeader ? " (with reconciler.waitForAntreaLeader it also waits while Antrea's leader webhook configurations exist)" : ''}`
        : `the reconciler's Lease (holder ${holder}) was last renewed ${renewed ?? '?'} s ago, over its ${duration ?? 15} s`,
    );
  return {
    ...(holder !== undefined ? { holder } : {}),
    ...(renewed !== undefined ? { renewedSecondsAgo: renewed } : {}),
    ...(duration !== undefined ? { leaseDurationSeconds: duration } : {}),
    healthy,
    ...(waiting.length > 0 ? { waitingForAntreaLeader: waiting } : {}),
  };
}
