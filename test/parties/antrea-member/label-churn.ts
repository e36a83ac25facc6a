/**
 * Label churn in the members throughout a cut-over test: Pods' label sets change, so each member's
 * Antrea controller exports a label identity that appears (`<id>-<hash16>`, as §d writes it, with the
 * member's own token) and withdraws one no Pod carries any more. Each step uses a label never used
 * before (`...&pod:app=churn,gen=<n>,member=<id>`), so a churned label's identity going away is the
 * churn, and anything else going away is what the watchers look for. The member player
 * (player.ts) has no Pods to read labels from, so this plays that part of Antrea's
 * member beside it, with the same identity.
 */
import { repeat, type Repeating } from '../../kube/wait';
import type { SimulatedMember } from './in-leader';

export const isChurnLabel = (label: string) => label.includes('&pod:app=churn,gen=');

export class LabelChurn {
  private n = 0;
  private loop: Repeating | undefined;
  /** Member ID → its churned labels live now, oldest first. */
  readonly live = new Map<string, string[]>();
  readonly errors: { at: number; member: string; message: string }[] = [];
  steps = 0;

  constructor(
    private readonly members: ReadonlyMap<string, SimulatedMember>,
    /** How many churned labels each member keeps at once. */
    private readonly keep = 2,
  ) {}

  start(periodMs = 1000): void {
    this.loop = repeat(() => this.step(), periodMs);
  }

  async stop(): Promise<void> {
    await this.loop?.stop();
  }

  /**
   * Many Pods relabelled at once (a rollout): every member exports `n` new labels concurrently, kept
   * until the churn withdraws them with the rest. Two leaders allocating IDs at once then each hand
   * the same next IDs to different labels.
   */
  async burst(n: number): Promise<void> {
    await Promise.all(
      [...this.members].map(async ([id, m]) => {
        const labels = Array.from(
          { length: n },
          () => `ns:kubernetes.io/metadata.name=shop&pod:app=churn,gen=${++this.n},member=${id}`,
        );
        await Promise.all(
          labels.map(async (label) => {
            try {
              await m.createExport(m.labelExport(label));
              (this.live.get(id) ?? this.live.set(id, []).get(id)!).unshift(label);
            } catch (e) {
              this.errors.push({ at: Date.now(), member: id, message: (e as Error).message.slice(0, 300) });
            }
          }),
        );
      }),
    );
  }

  /** One change of labels in every member: a new label exported, the oldest beyond `keep` withdrawn. */
  async step(): Promise<void> {
    this.steps++;
    for (const [id, m] of this.members) {
      const labels = this.live.get(id) ?? [];
      this.live.set(id, labels);
      const label = `ns:kubernetes.io/metadata.name=shop&pod:app=churn,gen=${++this.n},member=${id}`;
      try {
        await m.createExport(m.labelExport(label));
        labels.push(label);
        while (labels.length > this.keep) {
          await m.withdrawLabel(labels[0]!);
          labels.shift();
        }
      } catch (e) {
        this.errors.push({ at: Date.now(), member: id, message: (e as Error).message.slice(0, 300) });
      }
    }
  }
}
