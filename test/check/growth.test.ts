/**
 * Rules that compare members with each other stay linear (or n log n), checked by counting work,
 * never by timing (the CIDR overlap sweep's range reads, the dash-prefix rule's Map lookups), and
 * their answers against brute force on small random inputs.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RULES } from '../../lib/check';
import { overlappingPairs, type Ipv4Range } from '../../lib/check/ipv4';
import { crossNetworkExchanges } from '../../lib/check/networks';
import { memberClusters, networkOf, objects, strings } from '../../lib/check/util';
import type { ClusterSetProps } from '../../lib/model';
import { isDashPrefixPair } from '../../lib/names';
import { cluster, minimalModel, service, type ModelDraft } from '../helpers/models';

/** A small deterministic generator, so that failures reproduce. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

function bruteOverlaps(rs: readonly Ipv4Range[]): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < rs.length; i++)
    for (let j = i + 1; j < rs.length; j++)
      if (rs[i]!.first <= rs[j]!.last && rs[j]!.first <= rs[i]!.last) out.push([i, j]);
  return out;
}

test('GIVEN random CIDR-like ranges WHEN swept THEN the overlapping pairs are exactly those of brute force, in order', () => {
  const rnd = random(7);
  for (let round = 0; round < 50; round++) {
    const rs = Array.from({ length: 40 }, () => {
      const size = 2 ** Math.floor(rnd() * 12);
      const first = Math.floor((rnd() * 4096) / size) * size;
      return { first, last: first + size - 1 };
    });
    assert.equal(
      overlappingPairs(rs, (r) => r),
      bruteOverlaps(rs),
    );
  }
});

test('GIVEN n and 8n disjoint ranges WHEN swept THEN range reads grow like n log n, not n²', () => {
  const reads = (n: number): number => {
    let count = 0;
    const rs = Array.from({ length: n }, (_, i) => ({ first: (n - i) * 256, last: (n - i) * 256 + 255 }));
    overlappingPairs(rs, (r) => {
      count++;
      return r;
    });
    return count;
  };
  const small = reads(1000);
  const large = reads(8000);
  // n log n: ×8 × log(8000)/log(1000) ≈ ×10.4; quadratic would be ×64.
  assert.ok(large / small < 13, `reads grew ×${(large / small).toFixed(1)} for ×8 ranges`);
});

const dashRule = RULES.find((r) => r.id === 'member-id-dash-prefix')!;

test('GIVEN random member IDs WHEN the dash-prefix rule runs THEN it reports exactly the pairs brute force finds', () => {
  const rnd = random(11);
  const parts = ['a', 'b', 'ab', 'x1'];
  for (let round = 0; round < 50; round++) {
    const ids = [
      ...new Set(
        Array.from({ length: 12 }, () =>
          Array.from(
            { length: 1 + Math.floor(rnd() * 3) },
            () => parts[Math.floor(rnd() * parts.length)],
          ).join('-'),
        ),
      ),
    ];
    const m = minimalModel();
    m.members = ids;
    const expected = new Set<string>();
    for (let i = 0; i < ids.length; i++)
      for (let j = i + 1; j < ids.length; j++)
        if (isDashPrefixPair(ids[i]!, ids[j]!)) expected.add(`members[${j}]|${ids[i]}|${ids[j]}`);
    const got = new Set(
      dashRule.check(m).map((d) => {
        const [a, b] = [...d.message.matchAll(/"([^"]+)"/g)].map((x) => x[1]);
        return `${d.path}|${a}|${b}`;
      }),
    );
    assert.equal([...got].sort(), [...expected].sort(), ids.join(' '));
  }
});

test('GIVEN 5,000 and 20,000 members WHEN the dash-prefix rule runs THEN its map lookups grow linearly, and the one pair is found', () => {
  // Every Map lookup the rule makes, counted while it runs.
  const run = (n: number) => {
    const get = Map.prototype.get;
    let count = 0;
    Map.prototype.get = function (this: Map<unknown, unknown>, k: unknown) {
      count++;
      return get.call(this, k);
    };
    let paths: string[];
    try {
      paths = dashRule
        .check(
          Object.assign(minimalModel(), {
            members: [...Array.from({ length: n }, (_, i) => `m${i}-z`), 'm7'],
            clusters: [cluster('hub', 0)],
          }),
        )
        .map((d) => d.path);
    } finally {
      Map.prototype.get = get;
    }
    return { count, paths };
  };
  const small = run(5_000);
  const large = run(20_000);
  assert.equal(large.paths, ['members[20000]'], 'm7-z and m7 form the one pair');
  assert.ok(small.count > 0);
  // Linear: ×4 members, ×4 lookups (pairs would be ×16).
  assert.ok(
    large.count / small.count < 4.5,
    `lookups grew ×${(large.count / small.count).toFixed(1)} for ×4 members`,
  );
});

/** The exchanges as the rule first computed them: every (Service, exporter, member) visited. */
function bruteExchanges(
  m: ClusterSetProps,
): { cluster: string; partner: string; service: string; exports: boolean; count: number }[] {
  const members = memberClusters(m);
  const byId = new Map(members.map((c) => [c.value.id, c]));
  const found = new Map<
    number,
    { cluster: string; partner: string; service: string; exports: boolean; count: number }
  >();
  const note = (
    c: (typeof members)[number],
    p: (typeof members)[number],
    service: string,
    exports: boolean,
  ) => {
    const seen = found.get(c.index);
    if (seen) seen.count++;
    else found.set(c.index, { cluster: c.value.id, partner: p.value.id, service, exports, count: 1 });
  };
  for (const s of objects(m.services, 'services')) {
    const service = `${s.value.namespace}/${s.value.name}`;
    for (const id of new Set(strings(s.value.exportedFrom, '').map((e) => e.value))) {
      const exporter = byId.get(id);
      if (!exporter) continue;
      for (const other of members) {
        if (networkOf(other.value) === networkOf(exporter.value)) continue;
        note(exporter, other, service, true);
        note(other, exporter, service, false);
      }
    }
  }
  return [...found.entries()].sort(([a], [b]) => a - b).map(([, x]) => x);
}

function randomNetworkModel(rnd: () => number, clusters: number, services: number): ModelDraft {
  const m = minimalModel();
  const ids = Array.from({ length: clusters }, (_, i) => `c${i}`);
  m.clusters = ids.map((id, i) => cluster(id, i + 1, { network: `n${Math.floor(rnd() * 3)}` }));
  m.leader = ids[0]!;
  m.members = ids.filter(() => rnd() < 0.9);
  m.services = Array.from({ length: services }, (_, i) =>
    service(
      'ns',
      `s${i}`,
      Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => ids[Math.floor(rnd() * ids.length)]!),
    ),
  );
  return m;
}

test('GIVEN random ClusterSets on several networks WHEN exchanges are counted THEN each member gets the count and the first exchange that visiting every triple gives', () => {
  const rnd = random(23);
  let exchanging = 0;
  for (let round = 0; round < 200; round++) {
    const m = randomNetworkModel(rnd, 1 + Math.floor(rnd() * 8), Math.floor(rnd() * 6));
    const got = crossNetworkExchanges(m).map((x) => ({
      cluster: x.first.cluster.value.id,
      partner: x.first.partner.value.id,
      service: x.first.service,
      exports: x.first.exports,
      count: x.count,
    }));
    assert.equal(got, bruteExchanges(m), JSON.stringify(m));
    if (got.length > 0) exchanging++;
  }
  assert.ok(exchanging > 50, `only ${exchanging} of 200 random sets exchange across networks`);
});

test('GIVEN ×4 members and ×4 Services WHEN exchanges are counted THEN Map lookups grow ×4 or so, not ×16', () => {
  const lookups = (members: number, services: number): number => {
    const m = randomNetworkModel(random(5), members, services);
    const get = Map.prototype.get;
    let count = 0;
    Map.prototype.get = function (this: Map<unknown, unknown>, k: unknown) {
      count++;
      return get.call(this, k);
    };
    try {
      crossNetworkExchanges(m);
    } finally {
      Map.prototype.get = get;
    }
    return count;
  };
  const small = lookups(100, 100);
  const large = lookups(400, 400);
  assert.ok(small > 0);
  assert.ok(large / small < 5, `lookups grew ×${(large / small).toFixed(1)}`);
});

test.run();
