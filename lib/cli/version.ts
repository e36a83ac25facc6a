/**
 * `clusterset version`: the package's version, the Node that runs it, and the reconciler image the
 * package renders when the model names none. Light: it loads package.json and lib/names.ts, none
 * of the compiler's modules (main.ts registers it without commands.ts).
 */
import type { CommandModule } from 'yargs';
import { version as packageVersion } from '../../package.json';
import { DEFAULT_RECONCILER_IMAGE } from '../names';

export const VERSION_COMMAND = 'version';

/** What `clusterset version --format json` prints, in this key order. */
export interface VersionInfo {
  /** The clusterset package's version (package.json). */
  readonly clusterset: string;
  /** `process.version`, e.g. `v20.20.2`. */
  readonly node: string;
  /** The reconciler image rendered when the model sets no `reconciler.image`. */
  readonly defaultReconcilerImage: string;
}

export function versionInfo(): VersionInfo {
  return {
    clusterset: packageVersion,
    node: process.version,
    defaultReconcilerImage: DEFAULT_RECONCILER_IMAGE,
  };
}

/** The text form: one `name: value` line each. */
export function versionText(v: VersionInfo): string {
  return [
    `clusterset: ${v.clusterset}`,
    `node: ${v.node}`,
    `default reconciler image: ${v.defaultReconcilerImage} (\`clusterset image build\` builds it from this package)`,
    '',
  ].join('\n');
}

export const VERSION_FORMATS = ['text', 'json'] as const;

export const versionCommand: CommandModule<object, { format: (typeof VERSION_FORMATS)[number] }> = {
  command: VERSION_COMMAND,
  describe: 'print the clusterset version, the Node version and the default reconciler image',
  builder: (y) =>
    y
      .option('format', {
        alias: ['output', 'o'],
        choices: VERSION_FORMATS,
        default: 'text' as const,
        describe: 'text, or json on stdout',
      })
      .example('$0 version --format json', 'the same as one JSON object'),
  handler: (a) => {
    const v = versionInfo();
    process.stdout.write(a.format === 'json' ? `${JSON.stringify(v)}\n` : versionText(v));
  },
};
