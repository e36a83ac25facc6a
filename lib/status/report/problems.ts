/**
 * The problems of a report, one line each prefixed by what it concerns, that every part of the
 * report adds to (so that the exit code, the text and the JSON agree); and the readers of live
 * objects the parts share to word them: conditions, annotations and ages.
 */
import type { Obj } from '../live';
import type { Condition } from './types';

export function conditionOf(o: Obj | undefined, type?: string): (Condition & { type: string }) | undefined {
  const cs = (o?.status as Obj | undefined)?.conditions;
  if (!Array.isArray(cs)) return undefined;
  const c = (type ? cs.find((x: Obj) => x.type === type) : cs[0]) as Obj | undefined;
  if (!c) return undefined;
  return {
    type: String(c.type ?? ''),
    status: String(c.status ?? ''),
    ...(c.reason ? { reason: String(c.reason) } : {}),
    ...(c.message ? { message: String(c.message) } : {}),
  };
}

export function describeCondition(c: Condition | undefined): string {
  if (!c) return 'no status';
  return [c.status, c.reason, c.message].filter(Boolean).join(': ');
}

export function annotations(o: Obj | undefined): Obj {
  return ((o?.metadata as Obj | undefined)?.annotations as Obj | undefined) ?? {};
}

export const secondsSince = (nowMs: number, t: unknown): number | undefined => {
  const ms = typeof t === 'string' ? Date.parse(t) : NaN;
  return Number.isNaN(ms) ? undefined : Math.max(0, Math.round((nowMs - ms) / 1000));
};

export class Problems {
  readonly lines: string[] = [];
  add(what: string, text: string): void {
    this.lines.push(`${what}: ${text}`);
  }
}
