/**
 * The public surface of the clusterset package: the model types a gitops repository's
 * `clusterset.ts` imports (`import type { ClusterSetProps } from 'clusterset'`).
 */
export type * from './model';
