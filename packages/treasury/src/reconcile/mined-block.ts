/** The block our records place a mined attempt in (a Bitcoin node without -txindex finds it only there). */
export interface MinedBlock {
  height: number;
  hash: string;
}
