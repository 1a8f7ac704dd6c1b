/** An SPL token account (owner = the wallet that controls it). Replaced, never mutated. */
export interface TokenAccount {
  readonly mint: string;
  readonly owner: string;
  readonly amount: bigint;
}

export type UndoEntry =
  | { kind: "lamports"; address: string; previous: bigint | undefined }
  | { kind: "token"; address: string; previous: TokenAccount | undefined };

/**
 * Account state of the simulated cluster: lamports per address and token accounts. Every change
 * is recorded in an undo log so a failed transaction (and, at block level, a reorg) can be rolled
 * back exactly.
 */
export class LedgerState {
  private readonly lamportsByAddress = new Map<string, bigint>();
  private readonly tokenAccounts = new Map<string, TokenAccount>();
  private log: UndoEntry[] = [];

  lamports(address: string): bigint {
    return this.lamportsByAddress.get(address) ?? 0n;
  }

  tokenAccount(address: string): TokenAccount | undefined {
    return this.tokenAccounts.get(address);
  }

  /** Units of a mint held across all token accounts. */
  tokenSupply(mint: string): bigint {
    let supply = 0n;
    for (const account of this.tokenAccounts.values()) if (account.mint === mint) supply += account.amount;
    return supply;
  }

  setLamports(address: string, value: bigint): void {
    if (value < 0n) throw new RangeError(`negative balance for ${address}`);
    this.log.push({ kind: "lamports", address, previous: this.lamportsByAddress.get(address) });
    this.lamportsByAddress.set(address, value);
  }

  addLamports(address: string, delta: bigint): void {
    this.setLamports(address, this.lamports(address) + delta);
  }

  setTokenAccount(address: string, account: TokenAccount): void {
    this.log.push({ kind: "token", address, previous: this.tokenAccounts.get(address) });
    this.tokenAccounts.set(address, account);
  }

  /** The token account is gone (SPL Token CloseAccount); its lamports are the caller's to move. */
  deleteTokenAccount(address: string): void {
    this.log.push({ kind: "token", address, previous: this.tokenAccounts.get(address) });
    this.tokenAccounts.delete(address);
  }

  /** Starts a fresh undo log and returns the one collected so far. */
  takeUndoLog(): UndoEntry[] {
    const taken = this.log;
    this.log = [];
    return taken;
  }

  /** Position in the current undo log, to roll back to. */
  mark(): number {
    return this.log.length;
  }

  rollbackTo(mark: number): void {
    this.undo(this.log.splice(mark));
  }

  /** Reverts the entries (newest last) without recording anything. */
  undo(entries: readonly UndoEntry[]): void {
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i];
      if (!entry) continue;
      if (entry.kind === "lamports") {
        if (entry.previous === undefined) this.lamportsByAddress.delete(entry.address);
        else this.lamportsByAddress.set(entry.address, entry.previous);
      } else if (entry.previous === undefined) {
        this.tokenAccounts.delete(entry.address);
      } else {
        this.tokenAccounts.set(entry.address, entry.previous);
      }
    }
  }
}
