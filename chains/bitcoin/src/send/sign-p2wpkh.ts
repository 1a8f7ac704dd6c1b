import * as ecc from "@bitcoinerlab/secp256k1";
import { address as bitcoinAddress, type networks, Psbt, type Transaction } from "bitcoinjs-lib";

/** Sequence of every input we sign: BIP-125 replaceable. */
const RBF_SEQUENCE = 0xfffffffd;

/** An output to spend: P2WPKH at `address`, with the key that owns it. */
export interface P2wpkhInput {
  txid: string;
  vout: number;
  amountRaw: bigint;
  address: string;
  key: { publicKey: Uint8Array; privateKey: Uint8Array };
}

/**
 * A version-2 transaction spending P2WPKH outputs, each input signed (SIGHASH_ALL) with its own key
 * and its signature verified before the transaction leaves: the treasury's coins (the sender) and
 * the deposit outputs of a batched sweep (one key per deposit address). `lockTime` (a block height,
 * default 0) is the transaction's nLockTime.
 */
export function signP2wpkh(
  inputs: readonly P2wpkhInput[],
  outputs: readonly { script: Uint8Array; value: bigint }[],
  encoding: networks.Network,
  lockTime = 0,
): Transaction {
  const psbt = new Psbt({ network: encoding });
  psbt.setVersion(2);
  psbt.setLocktime(lockTime);
  for (const input of inputs) {
    psbt.addInput({
      hash: input.txid,
      index: input.vout,
      sequence: RBF_SEQUENCE,
      witnessUtxo: { script: bitcoinAddress.toOutputScript(input.address, encoding), value: input.amountRaw },
    });
  }
  for (const output of outputs) psbt.addOutput({ script: output.script, value: output.value });
  inputs.forEach(({ key }, index) => {
    psbt.signInput(index, { publicKey: key.publicKey, sign: (hash) => ecc.sign(hash, key.privateKey) });
    if (!psbt.validateSignaturesOfInput(index, (pubkey, hash, signature) => ecc.verify(hash, pubkey, signature))) {
      throw new Error(`signature of input ${index} does not verify`);
    }
  });
  psbt.finalizeAllInputs();
  // The fee-rate sanity check of extractTransaction is the caller's to make (its plan), not bitcoinjs' default cap.
  return psbt.extractTransaction(true);
}
