/**
 * The PR comment at fleet scale. Its export picture is bounded by construction: its flows are
 * counted before any is built, so a fleet of 1,000 clusters x 16,000 Services (tens of millions of
 * flows, which used to exhaust memory) builds none, and a picture that fits builds no more than it
 * draws. Work is counted, not timed. Its per-bundle table is bounded too, so 1,000 new bundles still
 * fit in one comment.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GITHUB_COMMENT_LIMIT, formatMarkdown, type ExporterChange, type Impact } from '../../lib/diff';
import { buildFlows, countFlows } from '../../lib/diff/flows';
import { MAX_GRAPH_LABEL_CHARS, mermaid, type PictureWork } from '../../lib/diff/format';
import type { BundleDiff, TreeDiff } from '../../lib/diff/tree';

const LABELS = { before: 'out/', after: 'clusterset.ts' };

/** A one-object diff: the markdown needs one, the picture reads only the impact. */
const DIFF: TreeDiff = {
  bundles: [
    {
      bundle: 'clusters/leader',
      type: 'cluster',
      cluster: 'leader',
      presence: 'both',
      objects: [],
      files: [{ change: 'changed', file: 'clusters/leader/ConfigMap.x.yaml', fields: [] }],
    },
  ],
  clustersBefore: ['leader'],
  clustersAfter: ['leader'],
  stats: { filesBefore: 1, filesAfter: 1, parsed: 1 },
};

const id = (i: number): string => `m-${String(i).padStart(4, '0')}`;

/**
 * GIVEN `members` members (a leader that is not one) and `services` Services, Service k exported
 * from 2 or 3 consecutive members, as the synth benchmark spreads them; `joins` members more after
 * the change; `gains`: Service 0 gains an exporter (the first member, not already one).
 */
function fleet(members: number, services: number, o: { joins?: number; gains?: boolean } = {}): Impact {
  const before = Array.from({ length: members }, (_, i) => id(i + 1));
  const after = [...before, ...Array.from({ length: o.joins ?? 0 }, (_, i) => id(members + i + 1))];
  const exports = Array.from({ length: services }, (_, k) => {
    const n = k % 2 === 0 ? 2 : 3;
    const exporters: ExporterChange[] = Array.from({ length: n }, (_, j) => ({
      cluster: id(((k + j) % (members - 1)) + 2),
      change: 'same',
    }));
    if (k === 0 && o.gains) exporters.unshift({ cluster: id(1), change: 'added' });
    return {
      service: `team-${String(k % 10).padStart(2, '0')}/svc-${String(k).padStart(5, '0')}`,
      exporters,
    };
  });
  return {
    leader: 'leader',
    membersBefore: before,
    membersAfter: after,
    clusters: ['leader', ...after],
    touched: ['leader'],
    delivery: [],
    items: [],
    exports,
    networks: {},
    afterMerge: { beforeMerge: [], steps: [], sections: [], breaking: [] },
  };
}

/** Flows of a fleet where nothing changes, by arithmetic over the exports alone. */
function expectedFlows(i: Impact): number {
  return i.exports.reduce((n, s) => n + s.exporters.length * (i.membersAfter.length - 1), 0);
}

test('GIVEN 1,000 clusters x 16,000 Services and a member that joins WHEN the PR comment is drawn THEN no flow is built and the comment says how many there are', () => {
  const i = fleet(999, 16_000, { joins: 1 });
  const total = countFlows(i, 'all');
  // Old members import from old exporters (same), the new member imports everything (added), from
  // the 998 members that export (m-0001 exports nothing).
  const exports = i.exports.reduce((n, s) => n + s.exporters.length, 0);
  assert.is(total.flows, exports * 999);
  assert.is(countFlows(i, 'changed').flows, exports);
  const work: PictureWork = { flowsBuilt: 0 };
  const picture = mermaid(i, work);
  assert.is(work.flowsBuilt, 0, 'nothing is built for a picture that is left out');
  assert.is(
    picture,
    `_Picture left out: 40,000 flows (a Service from one member to another) on 998 arrows change, too many to draw (the ClusterSet has ${total.flows.toLocaleString('en-US')} flows in all); the summary above lists the changes._`,
  );
  assert.is(total.flows.toLocaleString('en-US'), '39,960,000');
  const md = formatMarkdown(DIFF, i, LABELS);
  assert.ok(md.includes(picture), 'the comment carries the line');
  assert.not.match(md, /```mermaid/);
});

test('GIVEN 1,000 clusters x 16,000 Services and no flow that changes THEN nothing is built and the count is the real one', () => {
  const i = fleet(1_000, 16_000);
  const work: PictureWork = { flowsBuilt: 0 };
  const picture = mermaid(i, work);
  assert.is(work.flowsBuilt, 0);
  assert.is(countFlows(i, 'all').flows, expectedFlows(i));
  assert.match(
    picture,
    /^_Picture left out: the ClusterSet has 39,960,000 flows \(a Service from one member to another\) on 998,001 arrows, too many to draw, and none of them changes\._$/,
  );
});

test('GIVEN a fleet too big to draw whole WHEN one Service gains an exporter THEN only its flows are built and drawn', () => {
  const i = fleet(40, 800, { gains: true });
  const changed = countFlows(i, 'changed');
  assert.is(changed.flows, 39, 'the new exporter sends the Service to every other member');
  const work: PictureWork = { flowsBuilt: 0 };
  const picture = mermaid(i, work);
  assert.is(work.flowsBuilt, 39);
  assert.match(picture, /^```mermaid\n/);
  assert.match(
    picture,
    /_Only the 39 flows that change are drawn: the ClusterSet has 78,039 flows \(a Service from one member to another\) on 1,560 arrows, too many for one picture\._$/,
  );
  assert.is((picture.match(/==>/g) ?? []).length, 39);
});

test('GIVEN any fleet WHEN the picture is drawn THEN the flows built never exceed what the label limit lets it draw', () => {
  // Each flow puts at least its Service name (3 characters or more) and 4 more on a label.
  const cap = Math.floor(MAX_GRAPH_LABEL_CHARS / 7);
  for (const [members, services, joins] of [
    [3, 2, 0],
    [3, 2, 1],
    [12, 20, 0],
    [12, 20, 1],
    [40, 800, 1],
    [300, 3_000, 2],
  ] as const) {
    const i = fleet(members, services, { joins, gains: true });
    const work: PictureWork = { flowsBuilt: 0 };
    mermaid(i, work);
    assert.ok(work.flowsBuilt <= cap, `${members}x${services}: ${work.flowsBuilt} flows built`);
  }
});

test('GIVEN small fleets WHEN counted THEN the counts equal those of the flows built one by one', () => {
  for (const [members, services, joins, gains] of [
    [3, 2, 0, false],
    [3, 2, 1, true],
    [7, 11, 2, true],
  ] as const) {
    const i = fleet(members, services, { joins, gains });
    // A member that leaves and an export that goes: every kind of flow.
    const left = structuredClone(i) as { -readonly [K in keyof Impact]: Impact[K] };
    left.membersAfter = i.membersAfter.filter((m) => m !== id(2));
    left.exports = i.exports.map((s, k) =>
      k === 1 ? { ...s, exporters: s.exporters.map((e) => ({ ...e, change: 'removed' as const })) } : s,
    );
    for (const x of [i, left])
      for (const selection of ['all', 'changed'] as const) {
        const built = buildFlows(x, selection);
        const arrows = new Set(built.map((e) => `${e.exporter} ${e.importer} ${e.change ?? ''}`)).size;
        const chars = built.reduce((n, e) => n + e.service.length + 4, 0);
        assert.equal(countFlows(x, selection), { flows: built.length, arrows, labelChars: chars });
      }
  }
});

test('GIVEN 1,000 new bundles WHEN the PR comment is written THEN the table sums up all but 50 and the comment stays under the limit', () => {
  const i = fleet(999, 16_000);
  const bundles: BundleDiff[] = ['leader', ...i.membersAfter].map((c) => ({
    bundle: `clusters/${c}`,
    type: 'cluster',
    cluster: c,
    presence: 'added',
    objects: [
      {
        change: 'added',
        group: '',
        kind: 'ConfigMap',
        namespace: 'kube-system',
        name: 'antrea-mc-controller-config',
        file: `clusters/${c}/kube-system/ConfigMap.antrea-mc-controller-config.yaml`,
        fields: [],
      },
    ],
    files: [],
  }));
  const diff: TreeDiff = {
    ...DIFF,
    bundles,
    clustersBefore: [],
    clustersAfter: ['leader', ...i.membersAfter],
  };
  const md = formatMarkdown(diff, { ...i, touched: diff.clustersAfter }, LABELS);
  assert.ok(md.length <= GITHUB_COMMENT_LIMIT, `${md.length} characters`);
  assert.is((md.match(/^\| `clusters\//gm) ?? []).length, 50);
  assert.match(md, /\n\| … 950 more bundles \(--format json lists them\) \| 950 \| 0 \| 0 \|\n/);
  assert.match(md, /_Details cut to stay under GitHub's 65,536-character comment limit: /);
});

test.run();
