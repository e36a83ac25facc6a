/**
 * The check stage: the model's shape (JSON Schema) and its rules, all diagnostics at once, sorted
 * so that reports are stable.
 */
import { sortDiagnostics, type Diagnostic } from '../diagnostics';
import type { ClusterSetProps } from '../model';
import { RULES } from './rules';
import { checkSchema } from './schema';
import { isObject, withWalkCache } from './util';

export { RULES, type Rule } from './rules';
export { checkSchema } from './schema';

/**
 * Checks a model: schema diagnostics plus the diagnostics of every rule, errors and warnings
 * (`severity: 'warning'`, from the rules made with `warning()`) together. Rules run whenever the
 * input is an object, even one that fails the schema, so the user sees every problem at once.
 */
export function checkModel(input: unknown): Diagnostic[] {
  const diagnostics = checkSchema(input);
  if (isObject(input)) {
    withWalkCache(() => {
      for (const rule of RULES) diagnostics.push(...rule.check(input as unknown as ClusterSetProps));
    });
  }
  return sortDiagnostics(diagnostics);
}
