/**
 * The leader's reconciler: image, image pull Secrets, replicas, retirement and resources.
 */
import { durationNanos } from '../duration';
import type { ClusterSetProps, ReconcilerProps } from '../model';
import { DEFAULT_RECONCILER_RESOURCES, DNS1123_SUBDOMAIN, imageRepository } from '../names';
import { quantityValue } from '../quantity';
import { duplicates, isObject, quote, str, strings } from './util';
import { type Rule, rule } from './rule';

function reconcilerOf(m: ClusterSetProps): Partial<Record<keyof ReconcilerProps, unknown>> | undefined {
  const r: unknown = m.reconciler;
  return isObject(r) ? r : undefined;
}

/** The shortest silence after which the reconciler may retire a member (members announce every 10 s). */
const MIN_RETIRE_NANOS = 10_000_000_000n;

/**
 * A container image reference as the kubelet parses it (distribution/reference): an optional
 * registry host and port, lowercase path components, an optional tag, an optional digest.
 */
const IMAGE_REFERENCE = new RegExp(
  '^' +
    '(?:(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*' +
    '(?::[0-9]+)?/)?' +
    '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*' +
    '(?::[\\w][\\w.-]{0,127})?' +
    '(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?' +
    '$',
);
/** The longest image name (without tag and digest) the kubelet accepts. */
const IMAGE_NAME_MAX = 255;

/** Whether `image` is a reference the kubelet can pull (and `clusterset image build --tag` accepts). */
export function isImageReference(image: string): boolean {
  const name = imageRepository(image);
  return IMAGE_REFERENCE.test(image) && name.length <= IMAGE_NAME_MAX;
}

const RESOURCES = ['cpu', 'memory'] as const;
const REQUEST_LIMIT = ['requests', 'limits'] as const;

/** `reconciler.resources.<requests|limits>.<cpu|memory>` as set in the model (strings only). */
function quantityOf(
  r: Partial<Record<keyof ReconcilerProps, unknown>> | undefined,
  kind: (typeof REQUEST_LIMIT)[number],
  resource: (typeof RESOURCES)[number],
): string | undefined {
  const resources = r?.resources;
  const group = isObject(resources) ? resources[kind] : undefined;
  return isObject(group) ? str(group[resource]) : undefined;
}

export const reconcilerRules: readonly Rule[] = [
  rule(
    'reconciler-retire-members-after',
    'reconciler.retireMembersAfter is a Go duration of whole seconds, at least 10s.',
    'The reconciler refuses a config it cannot read and never starts; a silence shorter than 10 s retires live ' +
      'members between two announce refreshes, deleting their exports and withdrawing their endpoints from every ' +
      'other member.',
    (m, report) => {
      const after = str(reconcilerOf(m)?.retireMembersAfter);
      if (after === undefined) return;
      const ns = durationNanos(after);
      if (ns === undefined || ns % 1_000_000_000n !== 0n)
        report(
          'reconciler.retireMembersAfter',
          `retireMembersAfter ${quote(after)} is not a Go duration of whole seconds`,
          `write it like ${quote('24h')} (what Antrea uses), ${quote('90m')} or ${quote('30s')}`,
        );
      else if (ns < MIN_RETIRE_NANOS)
        report(
          'reconciler.retireMembersAfter',
          `retireMembersAfter ${quote(after)} is shorter than 10s; members refresh their announce only every 10 s`,
          `give at least ${quote('10s')}; Antrea's leader uses ${quote('24h')}`,
        );
    },
  ),
  rule(
    'reconciler-replicas',
    'reconciler.replicas is a whole number, at least 1.',
    'With no reconciler Pod, no Endpoints, ClusterInfo or LabelIdentity import is ever written and deleted exports ' +
      'keep their finalizer forever; the API server refuses a negative or fractional count.',
    (m, report) => {
      const n = reconcilerOf(m)?.replicas;
      if (typeof n !== 'number' || (Number.isInteger(n) && n >= 1)) return;
      report(
        'reconciler.replicas',
        `replicas ${quote(n)} is not a whole number of at least 1`,
        'leave it out for 2 (one writes, one stands by), or give 1 or more',
      );
    },
  ),
  rule(
    'reconciler-image-reference',
    'reconciler.image is a valid container image reference.',
    'The kubelet refuses to pull an invalid reference (InvalidImageName): the reconciler Pods never start and no ' +
      'dynamic ResourceImport is written.',
    (m, report) => {
      const image = str(reconcilerOf(m)?.image);
      if (image === undefined) return;
      if (isImageReference(image)) return;
      report(
        'reconciler.image',
        `image ${quote(image)} is not a valid image reference ([registry[:port]/]lowercase/path[:tag][@sha256:digest], name at most ${IMAGE_NAME_MAX} characters)`,
        `name the image \`clusterset image build --tag <reference> --push\` pushed, e.g. ${quote('registry.example.com/platform/clusterset:0.1.0')}`,
      );
    },
  ),
  rule(
    'reconciler-image-pull-secrets',
    'reconciler.imagePullSecrets are valid Secret names (DNS-1123 subdomains, at most 253 characters), each named once.',
    'The API server refuses a Pod template with an invalid Secret name: neither the reconciler Deployment nor any ' +
      "member's restart Job is applied; a name given twice is a duplicate entry in the Pod spec's list.",
    (m, report) => {
      const given: unknown = reconcilerOf(m)?.imagePullSecrets;
      const names = strings(given as readonly string[] | undefined, 'reconciler.imagePullSecrets');
      for (const n of names) {
        if (n.value.length <= 253 && DNS1123_SUBDOMAIN.test(n.value)) continue;
        report(
          n.path,
          `Secret name ${quote(n.value)} is not a valid Kubernetes name (lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253)`,
          `give the name of the Secret of type kubernetes.io/dockerconfigjson, e.g. ${quote('registry-credentials')}`,
        );
      }
      for (const { first, dup } of duplicates(names, (v) => v))
        report(
          dup.path,
          `Secret ${quote(dup.value)} is named twice (first at ${first.path})`,
          `remove ${dup.path}`,
        );
    },
  ),
  rule(
    'reconciler-resource-quantity',
    'reconciler.resources holds non-negative Kubernetes quantities.',
    'The API server refuses a Deployment with an invalid quantity: the reconciler is never deployed and the ' +
      "leader's sync fails.",
    (m, report) => {
      const r = reconcilerOf(m);
      for (const kind of REQUEST_LIMIT) {
        for (const resource of RESOURCES) {
          const q = quantityOf(r, kind, resource);
          if (q === undefined || quantityValue(q) !== undefined) continue;
          report(
            `reconciler.resources.${kind}.${resource}`,
            `${resource} ${kind === 'requests' ? 'request' : 'limit'} ${quote(q)} is not a non-negative Kubernetes quantity`,
            resource === 'cpu'
              ? `write CPU in cores or millicores, e.g. ${quote('100m')} or ${quote('1')}`
              : `write memory in bytes with a suffix, e.g. ${quote('128Mi')} or ${quote('1Gi')}`,
          );
        }
      }
    },
  ),
  rule(
    'reconciler-request-over-limit',
    'Each reconciler resource request, defaults included, is at most its limit.',
    'The API server refuses a container whose request exceeds its limit: the reconciler Deployment is never ' +
      'applied.',
    (m, report) => {
      const r = reconcilerOf(m);
      const defaults: Record<string, Record<string, string | undefined>> = {
        requests: DEFAULT_RECONCILER_RESOURCES.requests,
        limits: DEFAULT_RECONCILER_RESOURCES.limits,
      };
      for (const resource of RESOURCES) {
        const set = {
          requests: quantityOf(r, 'requests', resource),
          limits: quantityOf(r, 'limits', resource),
        };
        const request = set.requests ?? defaults.requests![resource];
        const limit = set.limits ?? defaults.limits![resource];
        if (request === undefined || limit === undefined) continue;
        const [rv, lv] = [quantityValue(request), quantityValue(limit)];
        if (rv === undefined || lv === undefined || rv <= lv * (1 + 1e-12)) continue;
        const given = set.limits !== undefined ? 'limits' : 'requests';
        report(
          `reconciler.resources.${given}.${resource}`,
          `${resource} request ${quote(request)}${set.requests === undefined ? ' (the default)' : ''} is more than the ${resource} limit ${quote(limit)}${set.limits === undefined ? ' (the default)' : ''}`,
          `raise reconciler.resources.limits.${resource} to at least ${quote(request)}, or lower reconciler.resources.requests.${resource}`,
        );
      }
    },
  ),
];
