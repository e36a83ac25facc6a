import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkSchema, compileSchemaCheck, modelPath } from '../../lib/check/schema';
import type { Diagnostic } from '../../lib/diagnostics';
import { baseModel, broken, type ModelDraft } from './fixtures';

/** Writes a property the typed model does not have, as a YAML or JSON model could. */
function set(target: object, key: string, value: unknown): void {
  (target as Record<string, unknown>)[key] = value;
}

function only(ds: readonly Diagnostic[], path: string): Diagnostic {
  const hits = ds.filter((d) => d.path === path);
  assert.is(hits.length, 1, `one diagnostic at ${path}, got ${JSON.stringify(ds, null, 1)}`);
  assert.is(hits[0]!.rule, 'schema');
  return hits[0]!;
}

test('GIVEN the valid base model WHEN its shape is checked THEN there is no diagnostic', () => {
  assert.equal(checkSchema(baseModel()), []);
});

test('fails GIVEN a cluster with "serviceCidr" WHEN checked THEN the unknown property is named and "serviceCIDR" suggested', () => {
  const ds = checkSchema(broken((m) => set(m.clusters[2]!, 'serviceCidr', '10.0.0.0/16')));
  const d = only(ds, 'clusters[2].serviceCidr');
  assert.match(d.message, 'unknown property "serviceCidr"');
  assert.match(d.fix, 'did you mean "serviceCIDR"?');
});

test('fails GIVEN a Service with "exportFrom" WHEN checked THEN "exportedFrom" is suggested (two edits away)', () => {
  const ds = checkSchema(
    broken((m) => {
      const s = m.services![1]!;
      set(s, 'exportFrom', s.exportedFrom);
      delete (s as Partial<typeof s>).exportedFrom;
    }),
  );
  assert.match(only(ds, 'services[1].exportFrom').fix, 'did you mean "exportedFrom"?');
  assert.match(only(ds, 'services[1].exportedFrom').message, '"exportedFrom" is required but missing');
});

test('fails GIVEN an unknown property far from any known one WHEN checked THEN the allowed properties are listed', () => {
  const d = only(checkSchema(broken((m) => set(m, 'region', 'eu'))), 'region');
  assert.match(d.message, 'unknown property "region"');
  assert.match(d.fix, 'remove it');
  assert.match(d.fix, '"clusterSetId"');
});

test('fails GIVEN a cluster without apiServer WHEN checked THEN the path names the missing property and the fix says what it is', () => {
  const d = only(
    checkSchema(broken((m) => delete (m.clusters[1] as Partial<ModelDraft['clusters'][0]>).apiServer)),
    'clusters[1].apiServer',
  );
  assert.match(d.message, '"apiServer" is required but missing');
  assert.match(d.fix, "URL of the cluster's API server");
  assert.match(d.fix, '"https://east.example.com:6443"');
});

test('fails GIVEN podCIDRs as a single string WHEN checked THEN the received value is quoted and a list is asked for', () => {
  const d = only(
    checkSchema(broken((m) => set(m.clusters[3]!, 'podCIDRs', '10.203.0.0/16'))),
    'clusters[3].podCIDRs',
  );
  assert.is(d.message, 'expected a list, received "10.203.0.0/16"');
});

test('fails GIVEN endpointIPType "PodIp" WHEN checked THEN the allowed values are listed and "PodIP" is suggested', () => {
  const d = only(
    checkSchema(broken((m) => set(m.clusters[1]!, 'endpointIPType', 'PodIp'))),
    'clusters[1].endpointIPType',
  );
  assert.match(d.message, '"PodIp" is not one of the allowed values "ClusterIP" and "PodIP"');
  assert.match(d.fix, 'did you mean "PodIP"?');
});

test('fails GIVEN a label value that is a number WHEN checked THEN the path quotes the label key', () => {
  const ds = checkSchema(
    broken((m) =>
      set(
        m.baselinePolicies![1]!.egress![0]!.to![0]!.namespaceSelector!.matchLabels!,
        'kubernetes.io/metadata.name',
        7,
      ),
    ),
  );
  only(
    ds,
    'baselinePolicies[1].egress[0].to[0].namespaceSelector.matchLabels["kubernetes.io/metadata.name"]',
  );
});

test('fails GIVEN something that is not an object WHEN checked THEN one diagnostic for the whole model', () => {
  for (const input of [null, 7, 'clusterset', [baseModel()]]) {
    const ds = checkSchema(input);
    assert.is(ds.length, 1);
    assert.is(ds[0]!.path, '');
    assert.match(ds[0]!.message, 'expected an object');
  }
});

test('fails GIVEN many shape errors WHEN checked THEN all are reported, none in raw ajv words or JSON pointers', () => {
  const ds = checkSchema(
    broken((m) => {
      set(m, 'clusterSetId', 42);
      set(m.clusters[0]!, 'apiserver', 'https://x');
      set(m.services![0]!.ports[0]!, 'protocol', 'tcp');
      set(m.tiers![0]!, 'priority', '100');
      set(m.stretchedPolicies![0]!.ingress![0]!.from![0]!, 'scope', 'Clusterset');
      delete (m as Partial<ModelDraft>).members;
    }),
  );
  assert.equal(ds.map((d) => d.path).sort(), [
    'clusterSetId',
    'clusters[0].apiserver',
    'members',
    'services[0].ports[0].protocol',
    'stretchedPolicies[0].ingress[0].from[0].scope',
    'tiers[0].priority',
  ]);
  assert.match(only(ds, 'clusters[0].apiserver').fix, 'did you mean "apiServer"?');
  assert.match(only(ds, 'stretchedPolicies[0].ingress[0].from[0].scope').fix, 'did you mean "ClusterSet"?');
  for (const d of ds) {
    assert.not.match(d.message, /must (have|NOT|be equal|match)|instancePath|\/clusters\//, d.message);
    assert.ok(d.fix.length > 0);
  }
});

test('GIVEN JSON pointers WHEN mapped THEN they read as model paths, lists by index and odd keys quoted', () => {
  const root = { clusters: [{ id: 'a' }, { id: 'b' }], labels: { '0': 'x', 'a/b': 'y' } };
  assert.is(modelPath('', root), '');
  assert.is(modelPath('/clusters/1/id', root), 'clusters[1].id');
  assert.is(modelPath('/labels/0', root), 'labels["0"]');
  assert.is(modelPath('/labels/a~1b', root), 'labels["a/b"]');
});

test('GIVEN a schema with anyOf WHEN a value matches no branch THEN one diagnostic replaces the branch noise', () => {
  const check = compileSchemaCheck({
    type: 'object',
    properties: {
      port: { anyOf: [{ type: 'integer' }, { type: 'string', enum: ['http', 'https'] }] },
      peer: {
        oneOf: [
          { type: 'object', required: ['cidr'], properties: { cidr: { type: 'string' } } },
          { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        ],
      },
      other: { type: 'string' },
    },
  });
  const ds = check({ port: 'ftp', peer: {}, other: 1 });
  assert.equal(ds.map((d) => d.path).sort(), ['other', 'peer', 'port']);
  const port = ds.find((d) => d.path === 'port')!;
  assert.match(port.message, '"ftp" does not match any of the allowed forms');
  assert.match(port.message, 'an integer');
  assert.match(port.message, '"http" and "https"');
  assert.match(ds.find((d) => d.path === 'peer')!.message, 'an object with "cidr", or an object with "name"');
  assert.equal(check({ port: 80, peer: { cidr: '10.0.0.0/8' }, other: 'x' }), []);
});

test('GIVEN the generated model schema WHEN its defaults are read THEN each is a value an editor may offer, never prose', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const schema = require('../../generated/model.schema.json') as unknown;
  const defaults: [string, unknown][] = [];
  const walk = (n: unknown, p: string): void => {
    if (Array.isArray(n)) n.forEach((x, i) => walk(x, `${p}[${i}]`));
    else if (typeof n === 'object' && n !== null) {
      const o = n as Record<string, unknown>;
      if ('default' in o) defaults.push([p, o.default]);
      for (const [k, v] of Object.entries(o)) walk(v, `${p}/${k}`);
    }
  };
  walk(schema, '');
  assert.ok(defaults.length > 10, 'real defaults stay');
  for (const [p, d] of defaults) {
    if (typeof d === 'string') assert.not.match(d, /^- | - /, `${p}: ${d}`);
  }
  const network = (
    schema as { definitions: Record<string, { properties: Record<string, { description: string }> }> }
  ).definitions.ClusterProps!.properties.network!;
  assert.match(network.description, /Default: the cluster shares the single default network/);
});

test.run();
