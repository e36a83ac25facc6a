/**
 * Validation of what we render: every custom resource is checked with ajv against the schema of the
 * vendored CRD it belongs to, with unknown fields refused (the API server would prune them
 * silently). Built-in kinds are typed at compile time by the cdk8s-plus k8s bindings and proven on
 * real API servers by the e2e tests; a kind that is neither is refused.
 */
import type { ValidateFunction } from 'ajv';
import type { Diagnostic } from './diagnostics';
import type { Bundles, K8sObject } from './render';
import type { DeliveryFolders } from './render/delivery';

/** Built-in kinds we render, by apiVersion. */
export const BUILTIN_KINDS: ReadonlySet<string> = new Set([
  'v1/Namespace',
  'v1/ServiceAccount',
  'v1/Secret',
  'v1/ConfigMap',
  'rbac.authorization.k8s.io/v1/Role',
  'rbac.authorization.k8s.io/v1/RoleBinding',
  'rbac.authorization.k8s.io/v1/ClusterRole',
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding',
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy',
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding',
  'apiextensions.k8s.io/v1/CustomResourceDefinition',
  'apps/v1/Deployment',
  'batch/v1/Job',
  'policy/v1/PodDisruptionBudget',
]);

type Schema = Record<string, unknown>;

/**
 * A copy of a structural schema in which every object that lists `properties` refuses others,
 * unless it preserves unknown fields. Value-validation branches (allOf/anyOf/oneOf/not) are left as
 * they are: in a structural schema they only restate fields declared beside them.
 */
export function closeSchema(s: Schema): Schema {
  const out: Schema = { ...s };
  // Formats are not validated (validateFormats: false), so a oneOf of format-only branches (the
  // ACNP's IGMP groupAddress: ipv4 or ipv6) would match every branch and always fail. The API server
  // checks those formats; the model checks (rule-igmp-group-address) check the value.
  if (Array.isArray(s.oneOf) && (s.oneOf as Schema[]).every((b) => Object.keys(b).join() === 'format')) {
    delete out.oneOf;
  }
  if (s.properties && typeof s.properties === 'object') {
    out.properties = Object.fromEntries(
      Object.entries(s.properties as Record<string, Schema>).map(([k, v]) => [k, closeSchema(v)]),
    );
    if (s['x-kubernetes-preserve-unknown-fields'] !== true && s.additionalProperties === undefined) {
      out.additionalProperties = false;
    }
  }
  if (s.items && typeof s.items === 'object') out.items = closeSchema(s.items as Schema);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') {
    out.additionalProperties = closeSchema(s.additionalProperties as Schema);
  }
  return out;
}

/** The API server always accepts apiVersion, kind and metadata at the root, listed or not. */
function withRootFields(s: Schema): Schema {
  const properties = (s.properties ?? {}) as Record<string, Schema>;
  return {
    ...s,
    properties: {
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
      ...properties,
    },
  };
}

/**
 * Root fields that controllers and the API server write, never a manifest in git: `status`, and
 * Argo CD's `operation` (a sync request made by its CLI or UI). Leaving them out of the validators
 * refuses them in rendered output, and keeps generated/validators.js small: the Application CRD's
 * status and operation schemas are most of its 400 kB.
 */
export const RUNTIME_ROOT_FIELDS: readonly string[] = ['status', 'operation'];

function withoutRuntimeFields(s: Schema): Schema {
  const properties = { ...((s.properties ?? {}) as Record<string, Schema>) };
  for (const f of RUNTIME_ROOT_FIELDS) delete properties[f];
  return { ...s, properties };
}

/**
 * The schema an object of a CRD version must match: closed, with the root fields the API server
 * adds, without the fields only controllers write.
 */
export function crdObjectSchema(openAPIV3Schema: Schema): Schema {
  return closeSchema(withRootFields(withoutRuntimeFields(openAPIV3Schema)));
}

/** Export name of a CRD version's validator in generated/validators.js. */
export function validatorExportName(key: string): string {
  return key.replace(/[^A-Za-z0-9]/g, '_');
}

/**
 * Validators, precompiled by `npm run import` (ajv standalone code) for the CRDs we render;
 * compiling them at run time costs seconds.
 */
let precompiled: Record<string, ValidateFunction | undefined> | undefined;

function crdValidator(key: string): ValidateFunction | undefined {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  precompiled ??= require('../generated/validators.js') as Record<string, ValidateFunction | undefined>;
  return precompiled[validatorExportName(key)];
}

export function validateObject(o: K8sObject, where: string): Diagnostic[] {
  const key = `${o.apiVersion}/${o.kind}`;
  if (BUILTIN_KINDS.has(key)) return [];
  const validate = crdValidator(key);
  if (!validate) {
    return [
      {
        rule: 'output-unknown-kind',
        path: where,
        message: `${key} is neither a served version of a CRD we render nor a known built-in kind`,
        fix: 'add the CRD to IMPORTS in scripts/import.ts and run `npm run import`, or add the built-in kind to BUILTIN_KINDS (this is a compiler bug)',
      },
    ];
  }
  const data: unknown = o;
  const problems = validate(data) ? [] : schemaProblems(validate, o, where);
  return [...problems, ...replicatedPolicyProblems(o, where)];
}

/**
 * A ResourceImport's ACNP payload becomes a ClusterNetworkPolicy in every member (antrea-mc.md
 * §c.3), whose CRD is stricter than the ResourceImport's copy of the spec (enums, patterns, no
 * `scope` under egress `to`): so the payload is also checked as the ClusterNetworkPolicy it becomes.
 */
function replicatedPolicyProblems(o: K8sObject, where: string): Diagnostic[] {
  const spec = o.spec as { kind?: unknown; clusternetworkpolicy?: unknown } | undefined;
  if (o.kind !== 'ResourceImport' || spec?.kind !== 'AntreaClusterNetworkPolicy') return [];
  const acnp: K8sObject = {
    apiVersion: 'crd.antrea.io/v1beta1',
    kind: 'ClusterNetworkPolicy',
    metadata: { name: o.metadata.name },
    spec: spec.clusternetworkpolicy,
  };
  return validateObject(acnp, where).map((d) => ({
    ...d,
    path: d.path.replace(`${where}#/spec`, `${where}#/spec/clusternetworkpolicy`),
    message: `${d.message}, in the ClusterNetworkPolicy members import`,
  }));
}

function schemaProblems(validate: ValidateFunction, o: K8sObject, where: string): Diagnostic[] {
  return (validate.errors ?? []).map((e) => ({
    rule: 'output-schema',
    path: `${where}${e.instancePath ? `#${e.instancePath}` : ''}`,
    message:
      e.keyword === 'additionalProperties'
        ? `unknown field "${String((e.params as { additionalProperty: string }).additionalProperty)}" (the API server would prune it)`
        : `${e.message ?? 'invalid'} (${o.kind} ${o.metadata.name})`,
    fix: 'the rendered object does not match its CRD schema; this is a compiler bug, please report it',
  }));
}

/** Validates every object of every bundle; returns all problems. */
export function validateBundles(bundles: Bundles): Diagnostic[] {
  const out: Diagnostic[] = [];
  // An object shared by several bundles (render/index.ts `Shared`) that validated clean once is clean.
  const clean = new WeakSet<K8sObject>();
  for (const [cluster, objects] of bundles) {
    for (const o of objects) {
      if (clean.has(o)) continue;
      const before = out.length;
      out.push(
        ...validateObject(
          o,
          `clusters/${cluster}/${o.metadata.namespace ?? '_cluster'}/${o.kind}.${o.metadata.name}`,
        ),
      );
      if (out.length === before) clean.add(o);
    }
  }
  return out;
}

/** Validates the delivery objects (Argo CD, Flux) against their CRDs; returns all problems. */
export function validateDelivery(delivery: DeliveryFolders): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const [folder, objects] of delivery) {
    for (const o of objects) out.push(...validateObject(o, `${folder}/${o.kind}.${o.metadata.name}`));
  }
  return out;
}
