/**
 * Label identity IDs (1..16777214, Antrea's 24-bit VNI space): unique among the imports that exist,
 * stable for as long as an import exists, and never handed out again within one cycle of the space,
 * so that a member which missed a deletion (disconnected, restarting) never holds a freed ID that
 * now means another label.
 *
 * The state that must survive restarts is in the cluster: the IDs are in the LabelIdentity imports
 * themselves (adopted at start, as Antrea's leader does), and the position of the cursor in the
 * reconciler's Lease (`LABEL_ID_CURSOR_ANNOTATION`). The cursor is reserved a block at a time and
 * persisted before any ID of the block is handed out, so a restart resumes after every ID that was
 * ever given, at the cost of skipping the rest of a block.
 *
 * Antrea's own allocator reuses the smallest released ID first; this one does not, on purpose.
 */
import { MAX_LABEL_ID } from './desired/label';

/** Where the cursor lives: an annotation on the reconciler's Lease. */
export const LABEL_ID_CURSOR_ANNOTATION = 'clusterset/label-id-cursor';
/** IDs reserved per Lease write. */
export const LABEL_ID_BLOCK = 1000;

/** Thrown by allocate() when the reserved block is used up: persist reserve(), then try again. */
export class NeedReservation extends Error {
  override name = 'NeedReservation';
  constructor() {
    super('the reserved block of label IDs is used up');
  }
}

interface Claim {
  readonly hash: string;
  /** creationTimestamp of the import; '' for an allocation whose import is not created yet. */
  readonly created: string;
}

function next(id: number): number {
  return id >= MAX_LABEL_ID ? 1 : id + 1;
}

export class LabelIdAllocator {
  /** ID → imports claiming it (two only after a split brain or a hand edit). */
  private readonly claims = new Map<number, Claim[]>();
  /** Hash → the ID its import (or pending allocation) claims. */
  private readonly byHash = new Map<string, number>();
  private cursor = 1;
  private remaining = 0;
  private started = false;

  /**
   * Starts from the persisted cursor, or (none persisted: a first start, or a lost Lease) just past
   * the highest ID in use. Call after every existing import has been adopted.
   */
  start(persisted: number | undefined): void {
    if (
      persisted !== undefined &&
      Number.isInteger(persisted) &&
      persisted >= 1 &&
      persisted <= MAX_LABEL_ID
    ) {
      this.cursor = persisted;
    } else {
      let max = 0;
      for (const id of this.claims.keys()) max = Math.max(max, id);
      this.cursor = next(max);
    }
    this.remaining = 0;
    this.started = true;
  }

  get isStarted(): boolean {
    return this.started;
  }

  /** The cursor value to persist before allocating from a new block; then call reserved(). */
  reservation(): number {
    let c = this.cursor;
    for (let i = 0; i < LABEL_ID_BLOCK; i++) c = next(c);
    return c;
  }

  /** The reservation is stored in the cluster: the block may be handed out. */
  reserved(): void {
    this.remaining = LABEL_ID_BLOCK;
  }

  /** An import (name = hash) holds `id`, created at `created` (RFC 3339). */
  adopt(hash: string, id: number | undefined, created: string): void {
    this.forget(hash);
    if (id === undefined || !Number.isInteger(id) || id < 1 || id > MAX_LABEL_ID) return;
    const list = this.claims.get(id) ?? [];
    list.push({ hash, created });
    list.sort((a, b) => (a.created < b.created ? -1 : a.created > b.created ? 1 : a.hash < b.hash ? -1 : 1));
    this.claims.set(id, list);
    this.byHash.set(hash, id);
  }

  /** The import of `hash` is gone (or its allocation failed): its ID is free, but not reused soon. */
  forget(hash: string): void {
    const id = this.byHash.get(hash);
    if (id === undefined) return;
    this.byHash.delete(hash);
    const list = (this.claims.get(id) ?? []).filter((c) => c.hash !== hash);
    if (list.length > 0) this.claims.set(id, list);
    else this.claims.delete(id);
  }

  /** The label hash that holds `id`: the oldest import claiming it. */
  ownerOf(id: number): string | undefined {
    return this.claims.get(id)?.[0]?.hash;
  }

  /** A fresh ID for `hash`: the next unclaimed one after the cursor. */
  allocate(hash: string): number {
    if (!this.started) throw new Error('label ID allocator used before start()');
    for (let scanned = 0; scanned < MAX_LABEL_ID; scanned++) {
      if (this.remaining === 0) throw new NeedReservation();
      const id = this.cursor;
      this.cursor = next(this.cursor);
      this.remaining--;
      if (!this.claims.has(id)) {
        this.adopt(hash, id, '');
        return id;
      }
    }
    throw new Error(`all ${MAX_LABEL_ID} label identity IDs are in use`);
  }

  /** Number of IDs in use (for metrics). */
  get size(): number {
    return this.claims.size;
  }
}
