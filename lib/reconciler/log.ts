/**
 * JSON logs, one object per line on stdout: `{"time","level","msg",...fields}`, what log pipelines
 * (Loki, Elasticsearch, Cloud Logging) parse without configuration.
 */
export type Level = 'debug' | 'info' | 'warn' | 'error';

const RANK: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export function jsonLogger(
  level: Level = 'info',
  write: (line: string) => void = (l) => process.stdout.write(l),
  now: () => number = Date.now,
): Logger {
  const emit =
    (l: Level) =>
    (msg: string, fields: Record<string, unknown> = {}) => {
      if (RANK[l] < RANK[level]) return;
      write(`${JSON.stringify({ time: new Date(now()).toISOString(), level: l, msg, ...fields })}\n`);
    };
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') };
}

export function isLevel(s: string): s is Level {
  return s in RANK;
}
