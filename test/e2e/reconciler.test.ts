// End-to-end: `clusterset reconcile` on real control planes, as a process with its own
// ServiceAccount's token (bin/clusterset), through every flow of antrea-mc.md §h
// (reconciler-flows.ts). in-cluster.test.ts runs the same flows with the leader's Deployment.

import { setUpClusterSet } from './fixture';
import { flowsSuite } from './reconciler-flows';
import { startReconciler } from './reconciler-process';

flowsSuite('reconciler: the flows of antrea-mc.md §h on real API servers', 'flows', {
  setUp: setUpClusterSet,
  async start(f, name) {
    const rec = startReconciler(f, name);
    await rec.port;
    return rec;
  },
});
