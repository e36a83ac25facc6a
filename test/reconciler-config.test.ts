import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, parseReconcilerConfigText } from '../lib/reconciler-config';
import { reconcilerConfig } from '../lib/render/reconciler';
import { minimalModel, planOf } from './helpers/models';

test('GIVEN the config the compiler renders WHEN parsed THEN it is accepted as it is', () => {
  const rendered = reconcilerConfig(planOf(minimalModel()));
  assert.equal(parseReconcilerConfigText(JSON.stringify(rendered), 'cm'), rendered);
});

test('fails GIVEN a broken config THEN every problem is listed with its path', () => {
  const text = JSON.stringify({
    clusterSetId: '',
    leaderNamespace: 'ns',
    leader: 'hub',
    members: [
      { id: 'east', network: null, endpointIPType: 'Pods' },
      { id: 'east', network: null, endpointIPType: 'PodIP' },
    ],
    services: [
      { namespace: 'a', name: 'b', ports: [{ name: '', port: 0, protocol: 'TCP' }], exportedFrom: ['mars'] },
    ],
    retireMembersAfterSeconds: -1,
    extra: true,
  });
  try {
    parseReconcilerConfigText(text, 'config.json');
    assert.unreachable();
  } catch (e) {
    assert.instance(e, ConfigError);
    const problems = (e as ConfigError).problems;
    for (const p of [
      '$.extra: unknown key',
      '$.clusterSetId: a non-empty string is required',
      '$.retireMembersAfterSeconds',
      '$.members[0].endpointIPType',
      '$.members[1].id: member east is listed twice',
      '$.services[0].ports[0].port',
      '$.services[0].exportedFrom[0]: "mars" is not a listed member',
    ])
      assert.ok(
        problems.some((x) => x.startsWith(p)),
        `${p} in ${problems.join(' | ')}`,
      );
    assert.match((e as Error).message, /^config.json is not a usable reconciler config/);
  }
});

test('fails GIVEN text that is not JSON THEN one clear problem', () => {
  assert.throws(() => parseReconcilerConfigText('{', 'x'), /not JSON/);
});

test.run();
