/**
 * A member's restart Job (render/member-restart.ts), which restarts Antrea's member controller when
 * its Tiers or settings change: how far it got, from its own conditions, the record it keeps on the
 * member's ClusterSet and, when that says nothing of it yet, what its Pod waits for.
 */
import { MEMBER_RESTART_NAME, RESTART_RECORD_ANNOTATION } from '../../names';
import { findNamed, kindKey, listOf, nameOf, RESTART_POD_SELECTOR, type Obj } from '../live';
import { annotations, type Problems } from './problems';
import type { ClusterReport, StatusInput } from './types';

/** Container waiting reasons that mean a Pod cannot start by itself until someone acts. */
const STUCK =
  /^(ErrImagePull|ImagePullBackOff|InvalidImageName|ErrImageNeverPull|CreateContainerConfigError|CreateContainerError|CrashLoopBackOff)$/;

/**
 * The member's restart Job (render/member-restart.ts): what its record on the member's ClusterSet
 * says, and, when it says nothing of this Job yet, what its Pod waits for: a Job whose image cannot
 * be pulled never runs, and only its Pod says why. A failure is a problem, with the cause and a fix.
 */
export function restartReport(inp: StatusInput, id: string, p: Problems): ClusterReport['restart'] {
  const { plan } = inp;
  const ns = plan.memberNamespace;
  const rendered = (inp.bundles.get(id) ?? []).find(
    (o) => o.kind === 'Job' && o.name.startsWith(`${MEMBER_RESTART_NAME}-`),
  );
  const own = inp.reads.get(id);
  if (!rendered || !own || own.unreachable) return undefined;
  const job = rendered.name;
  const live = findNamed(listOf(own, kindKey('Job', ns)), job);
  if (!live) return { job, state: 'missing' }; // the bundle's comparison names it
  const conds = ((live.status as Obj | undefined)?.conditions ?? []) as Obj[];
  if (conds.some((c) => c.type === 'Complete' && c.status === 'True')) return { job, state: 'done' };
  const cs = findNamed(listOf(own, kindKey('ClusterSet', ns)), plan.clusterSetId);
  const record = annotations(cs)[RESTART_RECORD_ANNOTATION];
  const mine =
    typeof record === 'string' && record.startsWith(`${job} `) ? record.slice(job.length + 1) : undefined;
  const where = `restart Job ${ns}/${job}`;
  if (mine?.startsWith('failed: ')) {
    const detail = mine.slice('failed: '.length);
    p.add(
      id,
      `the ${where} cannot go on: ${detail}. It runs again by itself (the kubelet restarts it with its back-off) and goes on once that is fixed`,
    );
    return { job, state: 'failed', detail };
  }
  const pods = (listOf(own, kindKey('Pod', ns, RESTART_POD_SELECTOR)) ?? []).filter(
    (o) => ((o.metadata as Obj | undefined)?.labels as Obj | undefined)?.['job-name'] === job,
  );
  for (const pod of pods) {
    const statuses = ((pod.status as Obj | undefined)?.containerStatuses ?? []) as Obj[];
    for (const st of statuses) {
      const waiting = (st.state as Obj | undefined)?.waiting as Obj | undefined;
      const reason = String(waiting?.reason ?? '');
      if (!STUCK.test(reason)) continue;
      const message = waiting?.message ? `: ${String(waiting.message)}` : '';
      const last = ((st.lastState as Obj | undefined)?.terminated as Obj | undefined)?.exitCode;
      const detail = `its Pod ${nameOf(pod)} waits, ${reason}${message}${last !== undefined ? ` (last exit code ${String(last)})` : ''}`;
      const fix = /Image/.test(reason)
        ? `: the member's nodes must be able to pull reconciler.image (build and push it with \`npx clusterset image build --push\`${
            plan.reconciler.imagePullSecrets.length > 0
              ? `; its pull Secrets ${plan.reconciler.imagePullSecrets.join(', ')} must exist in ${ns}`
              : ''
          }); the kubelet tries again by itself`
        : '';
      p.add(id, `the ${where} cannot start: ${detail}${fix}`);
      return { job, state: 'cannot start', detail };
    }
  }
  if (conds.some((c) => c.type === 'Failed' && c.status === 'True')) {
    const c = conds.find((x) => x.type === 'Failed')!;
    const detail = [c.reason, c.message].filter(Boolean).map(String).join(': ');
    p.add(id, `the ${where} failed: ${detail}; delete it, and delivery creates it again`);
    return { job, state: 'failed', detail };
  }
  if (mine?.startsWith('waiting: ')) return { job, state: 'waiting', detail: mine.slice('waiting: '.length) };
  return { job, state: 'running' };
}
