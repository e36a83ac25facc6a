/**
 * The compiler, as a pure function: model in, `{ files, diagnostics }` out.
 * load → check → plan → render → validate → emit. Only lib/fs/ writes to disk (out/).
 */
import { checkModel } from './check';
import type { Diagnostic } from './diagnostics';
import { bySeverity, sortDiagnostics } from './diagnostics';
import type { Emitted } from './emit';
import { emit } from './emit';
import type { ClusterSetProps } from './model';
import type { Plan } from './plan';
import { plan as makePlan } from './plan';
import type { Bundles } from './render';
import { render } from './render';
import type { DeliveryFolders } from './render/delivery';
import { renderDelivery } from './render/delivery';
import { validateBundles, validateDelivery } from './validate';

export interface CompileResult {
  /** Empty when there are diagnostics. */
  readonly files: ReadonlyMap<string, string>;
  /** The errors: any one of them stops the compile, and nothing is written. */
  readonly diagnostics: readonly Diagnostic[];
  /**
   * The model's warnings (severity `warning`): legal, almost always a mistake. They never stop the
   * compile; the CLI reports them, and makes them errors under `--strict`.
   */
  readonly warnings: readonly Diagnostic[];
  readonly plan?: Plan;
  readonly bundles?: Bundles;
  /** Argo CD and Flux objects per output folder; empty without `delivery` in the model. */
  readonly delivery?: DeliveryFolders;
  readonly objectCounts: ReadonlyMap<string, number>;
  /** Milliseconds spent per stage. */
  readonly timings: Readonly<Record<string, number>>;
}

const EMPTY = new Map<string, never>();

export function compile(input: unknown, onStage: (stage: string) => void = () => {}): CompileResult {
  const timings: Record<string, number> = {};
  const time = <T>(stage: string, f: () => T): T => {
    onStage(stage);
    const t0 = performance.now();
    const r = f();
    timings[stage] = performance.now() - t0;
    return r;
  };
  const { errors: modelDiagnostics, warnings } = bySeverity(time('check', () => checkModel(input)));
  if (modelDiagnostics.length > 0)
    return { files: EMPTY, diagnostics: modelDiagnostics, warnings, objectCounts: EMPTY, timings };
  const plan = time('plan', () => makePlan(input as ClusterSetProps));
  const [bundles, delivery] = time('render', () => {
    const b = render(plan);
    return [b, renderDelivery(plan, b)] as const;
  });
  const outputDiagnostics = time('validate', () => [
    ...validateBundles(bundles),
    ...validateDelivery(delivery),
  ]);
  const emitted: Emitted = time('emit', () => emit(bundles, delivery));
  const diagnostics = sortDiagnostics([...outputDiagnostics, ...emitted.diagnostics]);
  return {
    // A compile with problems writes nothing: no files, whatever was emitted.
    files: diagnostics.length > 0 ? EMPTY : emitted.files,
    diagnostics,
    warnings,
    plan,
    bundles,
    delivery,
    objectCounts: emitted.objectCounts,
    timings,
  };
}
