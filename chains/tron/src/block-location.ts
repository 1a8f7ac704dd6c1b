/** Where a transfer was found: the block's height and hash. */
export interface BlockLocation {
  height: number;
  blockHash: string;
}
