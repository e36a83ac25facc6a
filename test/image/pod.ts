// One container of a rendered Pod template as `podman run` flags, so that a test runs the image under
// exactly the constraints the Deployment sets: the pod's and the container's securityContext (user
// and group, runAsNonRoot, read-only root, no privilege escalation, capabilities, seccomp),
// resources.limits, env (values and the downward API's metadata.name and metadata.namespace), the
// volumes it mounts (a configMap as a directory of its keys, an emptyDir as a tmpfs) and the args.
// A field it does not know throws, so a change to the rendered Deployment shows here instead of
// being silently left out. Left out by design: probes (the test asks the endpoints itself), ports
// (the container shares the host's network), the ServiceAccount token (the test mounts a
// kubeconfig), scheduling and requests.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { memoryBytes, quantityValue } from '../../lib/quantity';

type Obj = Record<string, unknown>;

export interface PodmanContainer {
  readonly image: string;
  /** Flags for `podman run`, before the image. */
  readonly flags: string[];
  /** The container's args (after the image). */
  readonly args: string[];
}

export interface PodContext {
  /** metadata.name of the Pod (the downward API's value). */
  readonly podName: string;
  readonly namespace: string;
  /** The data of each ConfigMap a volume names. */
  readonly configMaps: ReadonlyMap<string, Record<string, string>>;
  /** A directory for the files of configMap volumes. */
  readonly dir: string;
}

function only(what: string, o: Obj, known: readonly string[]): void {
  const extra = Object.keys(o).filter((k) => !known.includes(k));
  if (extra.length > 0) throw new Error(`${what}: ${extra.join(', ')} not reproduced by test/image/pod.ts`);
}

/** A CPU quantity (`500m`, `2`) in CPUs. */
function cpus(q: string): number {
  const v = quantityValue(q);
  if (v === undefined) throw new Error(`cpu quantity ${q} not understood`);
  return v;
}

function securityFlags(pod: Obj, container: Obj): string[] {
  only('pod securityContext', pod, ['runAsUser', 'runAsGroup', 'runAsNonRoot', 'seccompProfile']);
  only('container securityContext', container, [
    'runAsUser',
    'runAsGroup',
    'runAsNonRoot',
    'allowPrivilegeEscalation',
    'readOnlyRootFilesystem',
    'privileged',
    'capabilities',
  ]);
  const sc = { ...pod, ...container };
  const flags: string[] = [];
  const uid = sc.runAsUser as number | undefined;
  const gid = sc.runAsGroup as number | undefined;
  if (sc.runAsNonRoot === true && (uid === undefined || uid === 0))
    throw new Error('runAsNonRoot without a non-zero runAsUser: the kubelet would refuse to start it');
  if (uid !== undefined) flags.push('--user', gid !== undefined ? `${uid}:${gid}` : String(uid));
  const seccomp = (sc.seccompProfile as { type?: string } | undefined)?.type;
  // RuntimeDefault is podman's default profile; Unconfined turns it off.
  if (seccomp === 'Unconfined') flags.push('--security-opt', 'seccomp=unconfined');
  else if (seccomp !== undefined && seccomp !== 'RuntimeDefault')
    throw new Error(`seccompProfile ${seccomp} not reproduced`);
  // podman's --read-only also mounts tmpfs on /run, /tmp and /var/tmp; the kubelet does not.
  if (sc.readOnlyRootFilesystem === true) flags.push('--read-only', '--read-only-tmpfs=false');
  if (sc.allowPrivilegeEscalation === false) flags.push('--security-opt', 'no-new-privileges');
  if (sc.privileged === true) flags.push('--privileged');
  const caps = (sc.capabilities ?? {}) as { drop?: string[]; add?: string[] };
  only('capabilities', caps, ['drop', 'add']);
  for (const c of caps.drop ?? []) flags.push(`--cap-drop=${c}`);
  for (const c of caps.add ?? []) flags.push(`--cap-add=${c}`);
  return flags;
}

function envFlags(env: Obj[], ctx: PodContext): string[] {
  const fields: Record<string, string> = {
    'metadata.name': ctx.podName,
    'metadata.namespace': ctx.namespace,
  };
  return env.flatMap((e) => {
    only(`env ${String(e.name)}`, e, ['name', 'value', 'valueFrom']);
    if (e.valueFrom === undefined) return ['--env', `${String(e.name)}=${String(e.value ?? '')}`];
    const from = e.valueFrom as { fieldRef?: { fieldPath?: string } };
    const v = from.fieldRef?.fieldPath !== undefined ? fields[from.fieldRef.fieldPath] : undefined;
    if (v === undefined)
      throw new Error(`env ${String(e.name)}: valueFrom ${JSON.stringify(from)} not reproduced`);
    return ['--env', `${String(e.name)}=${v}`];
  });
}

function volumeFlags(mounts: Obj[], volumes: Obj[], ctx: PodContext): string[] {
  return mounts.flatMap((m) => {
    only(`volumeMount ${String(m.name)}`, m, ['name', 'mountPath', 'readOnly']);
    const v = volumes.find((x) => x.name === m.name);
    if (!v) throw new Error(`volumeMount ${String(m.name)}: no such volume`);
    const target = String(m.mountPath);
    if (v.emptyDir !== undefined) {
      only(`emptyDir ${String(v.name)}`, v.emptyDir as Obj, []);
      // The kubelet makes an emptyDir world-writable; noexec and the like are podman's, not its.
      return ['--tmpfs', `${target}:rw,exec,mode=0777`];
    }
    if (v.configMap !== undefined) {
      const cm = v.configMap as Obj;
      only(`configMap volume ${String(v.name)}`, cm, ['name']);
      const data = ctx.configMaps.get(String(cm.name));
      if (!data)
        throw new Error(`configMap volume ${String(v.name)}: ConfigMap ${String(cm.name)} not given`);
      const dir = path.join(ctx.dir, `configmap-${String(cm.name)}`);
      fs.mkdirSync(dir, { recursive: true });
      for (const [k, text] of Object.entries(data))
        fs.writeFileSync(path.join(dir, k), text, { mode: 0o644 });
      // A configMap volume is read-only whatever the mount says.
      return ['--volume', `${dir}:${target}:ro`];
    }
    throw new Error(`volume ${String(v.name)}: ${Object.keys(v).join(', ')} not reproduced`);
  });
}

/** `podman run` flags and args for container `name` of a Deployment's (or any) Pod template. */
export function podmanContainer(template: Obj, name: string, ctx: PodContext): PodmanContainer {
  const spec = template.spec as Obj;
  const containers = spec.containers as Obj[];
  const c = containers.find((x) => x.name === name);
  if (!c) throw new Error(`no container ${name} in the Pod template`);
  only(`container ${name}`, c, [
    'name',
    'image',
    'args',
    'env',
    'ports',
    'livenessProbe',
    'readinessProbe',
    'resources',
    'securityContext',
    'volumeMounts',
  ]);
  const limits = ((c.resources as Obj | undefined)?.limits ?? {}) as Record<string, string>;
  only('resources.limits', limits, ['memory', 'cpu']);
  const flags = [
    ...securityFlags((spec.securityContext ?? {}) as Obj, (c.securityContext ?? {}) as Obj),
    ...(limits.memory ? ['--memory', String(memoryBytes(limits.memory))] : []),
    ...(limits.cpu ? ['--cpus', String(cpus(limits.cpu))] : []),
    ...envFlags((c.env ?? []) as Obj[], ctx),
    ...volumeFlags((c.volumeMounts ?? []) as Obj[], (spec.volumes ?? []) as Obj[], ctx),
  ];
  return { image: String(c.image), flags, args: ((c.args ?? []) as unknown[]).map(String) };
}
