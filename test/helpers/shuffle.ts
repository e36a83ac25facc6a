/**
 * Seeded shuffles of a model's unordered lists, for determinism tests: same model, same bytes,
 * whatever order the model lists things in.
 */
import type { ClusterSetProps } from '../../lib/model';
import type { ModelDraft } from './models';

/** mulberry32: a tiny seeded PRNG, so a failure reproduces. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(xs: readonly T[] | undefined, rnd: () => number): T[] | undefined {
  if (xs === undefined) return undefined;
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** A deep copy of the model with every meaningless order shuffled. */
export function shuffleModel(model: ClusterSetProps, seed: number): ClusterSetProps {
  const rnd = prng(seed);
  const m = JSON.parse(JSON.stringify(model)) as ModelDraft;
  m.clusters = shuffled(m.clusters, rnd)!;
  m.members = shuffled(m.members, rnd)!;
  m.services = shuffled(m.services, rnd)?.map((s) => ({
    ...s,
    exportedFrom: shuffled(s.exportedFrom, rnd)!,
  }));
  m.tiers = shuffled(m.tiers, rnd);
  m.baselinePolicies = shuffled(m.baselinePolicies, rnd);
  m.stretchedPolicies = shuffled(m.stretchedPolicies, rnd)?.map((p) =>
    p.members ? { ...p, members: shuffled(p.members, rnd)! } : p,
  );
  return m as ClusterSetProps;
}
