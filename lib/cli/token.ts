/**
 * `clusterset token MEMBER`: the bootstrap step of a member without External Secrets, as a yargs
 * command module. The model only supplies names (namespaces, Secret names, members); the work is
 * lib/token.ts. It prints what it did, never the token.
 *
 * Exit 0 when the member Secret holds the token (written or already so); 1 when a cluster cannot be
 * reached or refuses; 2 for usage errors, before any cluster is called: a cluster ID that is no
 * member ("did you mean"), a kubeconfig or context that cannot be used, one API server for both
 * sides (the two contexts reach one server, the model gives the leader and the member one
 * `apiServer`, or a context reaches the other side's `apiServer`), a model whose token Secret
 * External Secrets owns.
 */
import type { Argv, CommandModule } from 'yargs';
import type * as Token from '../token';
import { planModelFile } from './model';

/** Exit status of a usage error (lib/cli/main.ts): no member of that ID, a context that cannot be used. */
const EXIT_USAGE = 2;

interface TokenArgs {
  member: string;
  model: string;
  'leader-kubeconfig'?: string;
  'leader-context'?: string;
  'member-kubeconfig'?: string;
  'member-context'?: string;
  wait: number;
}

/** The yargs command module registered by lib/cli/main.ts. */
export const tokenCommand: CommandModule<object, TokenArgs> = {
  command: 'token <member>',
  describe:
    "copy a member's token Secret from the leader into the Secret its ClusterSet names (keys ca.crt and token), without printing it",
  builder: (y: Argv) =>
    y
      .positional('member', { type: 'string', demandOption: true, describe: 'member cluster ID' })
      .option('model', { type: 'string', default: 'clusterset.ts', describe: 'model file (names only)' })
      .option('leader-kubeconfig', {
        type: 'string',
        describe: 'kubeconfig of the leader (default: $KUBECONFIG, else ~/.kube/config)',
      })
      .option('leader-context', {
        type: 'string',
        describe: "context of the leader (default: the context named as the leader's cluster ID)",
      })
      .option('member-kubeconfig', {
        type: 'string',
        describe: 'kubeconfig of the member (default: $KUBECONFIG, else ~/.kube/config)',
      })
      .option('member-context', {
        type: 'string',
        describe: 'context of the member (default: the context named as the member ID)',
      })
      .option('wait', {
        type: 'number',
        default: 30,
        describe:
          "seconds to wait for the leader's token Secret: for the leader's bundle to create it and its token controller to fill it",
      }) as unknown as Argv<TokenArgs>,
  handler: async (a) => {
    const plan = await planModelFile(a.model, { consequence: 'nothing was copied' });
    if (!plan) return;
    // @kubernetes/client-node is loaded only for this command.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { copyMemberToken, describeCopy, TokenError } = require('../token') as typeof Token;
    try {
      const result = await copyMemberToken({
        plan,
        member: a.member,
        leader: { kubeconfig: a['leader-kubeconfig'], context: a['leader-context'] },
        memberCluster: { kubeconfig: a['member-kubeconfig'], context: a['member-context'] },
        waitMs: a.wait * 1000,
      });
      process.stdout.write(`${describeCopy(result)}\n`);
    } catch (e) {
      // TokenError messages are scrubbed; anything else is reported by name only.
      process.stderr.write(
        `clusterset token: ${e instanceof TokenError ? e.message : `unexpected ${(e as Error)?.name ?? 'error'}`}\n`,
      );
      process.exitCode = e instanceof TokenError && e.usage ? EXIT_USAGE : 1;
    }
  },
};
