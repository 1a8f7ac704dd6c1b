/** An output the records say paid one of our Bitcoin addresses (deposit, treasury receipt, coin). */
export interface KnownOutput {
  txid: string;
  vout: number;
}
