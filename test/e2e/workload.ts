// A stream of member writes and the leader state an undisturbed reconciler would make of it, for the fault
// tests (reconciler-faults.test.ts, in-cluster.test.ts): members write as Antrea's member does
// (parties/antrea-member/in-leader.ts), at random but seeded, while a fault happens; afterwards the leader
// must hold exactly what the writes call for (computed here from what the members wrote), with no finalizer
// left behind and no label identity ID changed.

import * as assert from 'uvu/assert';
import { labelIdentityHash } from '../../lib/names';
import { request } from '../kube/cluster';
import { eventually } from '../kube/wait';
import type { ClusterSetFixture } from './fixture';
import type { SimulatedMember } from '../parties/antrea-member/in-leader';

const MC = '/apis/multicluster.crd.antrea.io/v1alpha1/namespaces';

/** The Service ports the workload exports (what a real Service holds after defaulting). */
export const PORTS = [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }];

/** A seeded PRNG (mulberry32), so a failing run can be replayed. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface WorkloadOptions {
  /** Services `app/svc-0` … of the model that differences() checks. */
  readonly services: number;
  /** The first `streamed` of them get the random writes. */
  readonly streamed: number;
  readonly seed: number;
}

export class Workload {
  /** What each member exports now: service → member → ClusterIP. */
  readonly exported = new Map<string, Map<string, string>>();
  /** Label → the members that export it. */
  readonly labels = new Map<string, Set<string>>();
  private version = 0;
  private readonly random: () => number;
  /** `<svc>/<member>` withdrawn since the last convergence: no re-export until it is gone. */
  private readonly pending = new Set<string>();

  constructor(
    readonly f: ClusterSetFixture,
    readonly members: readonly SimulatedMember[],
    private readonly o: WorkloadOptions,
  ) {
    this.random = rng(o.seed);
  }

  /** One member write, chosen at random: export or update a Service (new ClusterIP), or withdraw it. */
  private async randomOp(m: SimulatedMember): Promise<void> {
    let svc = '';
    do svc = `svc-${Math.floor(this.random() * this.o.streamed)}`;
    while (this.pending.has(`${svc}/${m.id}`));
    const by = this.exported.get(svc) ?? new Map<string, string>();
    this.exported.set(svc, by);
    if (by.has(m.id) && this.random() < 0.35) {
      by.delete(m.id);
      // Its exports stay until the leader releases them; a member re-exporting would wait for that.
      this.pending.add(`${svc}/${m.id}`);
      await m.withdrawService('app', svc);
    } else {
      const i = this.members.indexOf(m);
      const ip = `10.${i + 1}.${Math.floor(this.version / 250)}.${this.version % 250}`;
      this.version++;
      by.set(m.id, ip);
      await m.exportService('app', svc, { ports: PORTS, clusterIP: ip });
    }
  }

  /** `n` writes spread over the members, each member writing in order, members in parallel. */
  async stream(n: number, during?: (done: number) => Promise<void> | void): Promise<void> {
    let done = 0;
    await Promise.all(
      this.members.map(async (m) => {
        for (let i = 0; i < n / this.members.length; i++) {
          await this.randomOp(m);
          done++;
          await during?.(done);
        }
      }),
    );
  }

  async list(resource: string): Promise<Record<string, unknown>[]> {
    const r = await request(this.f.leader.admin, 'GET', `${MC}/${this.f.ns}/${resource}`);
    if (r.status !== 200) throw new Error(`list ${resource}: HTTP ${r.status}`);
    return (r.json as { items: Record<string, unknown>[] }).items;
  }

  /** What differs from the state an undisturbed reconciler would have produced; empty when converged. */
  async differences(): Promise<string[]> {
    const out: string[] = [];
    const imports = new Map(
      (await this.list('resourceimports')).map((i) => [(i.metadata as { name: string }).name, i]),
    );
    for (let i = 0; i < this.o.services; i++) {
      const svc = `svc-${i}`;
      const want = [...(this.exported.get(svc)?.values() ?? [])].sort();
      const ri = imports.get(`app-${svc}-endpoints`);
      const have = ri
        ? (ri.spec as { endpoints: { subsets: { addresses: { ip: string }[] }[] } }).endpoints.subsets
            .flatMap((s) => s.addresses.map((a) => a.ip))
            .sort()
        : [];
      if (JSON.stringify(want) !== JSON.stringify(have))
        out.push(`${svc}: want ${want.join(',')} have ${have.join(',')}`);
    }
    for (const e of await this.list('resourceexports')) {
      const md = e.metadata as { name: string; deletionTimestamp?: string };
      if (md.deletionTimestamp) out.push(`${md.name}: still being deleted (finalizer not released)`);
      const cond = (e.status as { conditions?: { type: string }[] } | undefined)?.conditions?.[0];
      const kind = (e.spec as { kind?: string }).kind;
      if ((kind === 'Service' || kind === 'Endpoints') && !md.deletionTimestamp && cond?.type !== 'Succeeded')
        out.push(`${md.name}: status ${cond?.type ?? 'none'}`);
    }
    for (const [l, holders] of this.labels) {
      const has = imports.has(labelIdentityHash(l));
      if (has !== holders.size > 0) out.push(`label ${l}: import ${has ? 'present' : 'missing'}`);
    }
    return out;
  }

  /** Waits until differences() is empty; throws with the first differences otherwise. */
  async converge(what: string, timeoutMs = 60_000): Promise<void> {
    let last: string[] = [];
    try {
      await eventually(
        `converged after ${what}`,
        async () => {
          last = await this.differences();
          if (last.length > 0) return undefined;
          this.pending.clear();
          return true;
        },
        timeoutMs,
        500,
      );
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${last.slice(0, 20).join('\n')}`);
    }
  }

  /** Label → the ID its import holds now. */
  async labelIds(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const i of await this.list('resourceimports')) {
      const spec = i.spec as { kind: string; labelIdentity?: { label: string; id: number } };
      if (spec.kind === 'LabelIdentity') out.set(spec.labelIdentity!.label, spec.labelIdentity!.id);
    }
    return out;
  }

  async exportLabel(m: SimulatedMember, label: string): Promise<void> {
    await m.exportLabel(label);
    const holders = this.labels.get(label) ?? new Set<string>();
    holders.add(m.id);
    this.labels.set(label, holders);
  }

  /** A shared label and four of each member's own: 1 + 4 x members label identities. */
  async exportLabels(): Promise<void> {
    for (const [i, m] of this.members.entries()) {
      await this.exportLabel(m, `ns:kubernetes.io/metadata.name=app&pod:app=shared`);
      for (let j = 0; j < 4; j++)
        await this.exportLabel(m, `ns:kubernetes.io/metadata.name=app&pod:app=m${i}-${j}`);
    }
  }
}

export function assertSameIds(before: Map<string, number>, after: Map<string, number>): void {
  for (const [l, id] of before) if (after.has(l)) assert.is(after.get(l), id, `label ID of ${l} changed`);
}
