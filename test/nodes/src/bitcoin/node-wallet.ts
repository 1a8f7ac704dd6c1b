import * as ecc from "@bitcoinerlab/secp256k1";
import { HDKey } from "@scure/bip32";
import { address as bitcoinAddress, crypto, type Network, script, Transaction } from "bitcoinjs-lib";

/** A key of the node wallet and the P2WPKH script it receives on. */
export interface WalletKey {
  privateKey: Uint8Array;
  publicKey: Uint8Array;
  keyHash: Uint8Array;
  script: Uint8Array;
  address: string;
}

/** An output the wallet can spend, with what signing needs. */
export interface SpendableOutput {
  txid: string;
  vout: number;
  value: bigint;
  key: WalletKey;
}

export interface PaymentOutput {
  script: Uint8Array;
  value: bigint;
}

const SEQUENCE_RBF = 0xfffffffd;
/** Below this a P2WPKH change output is dust: it is left to the fee instead, as Core does. */
const DUST_LIMIT = 294n;

export class InsufficientFundsError extends Error {}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

function p2wpkhScript(keyHash: Uint8Array): Uint8Array {
  return Uint8Array.from([0x00, 0x14, ...keyHash]);
}

/** The BIP-143 scriptCode of a P2WPKH input: the P2PKH script of the same key hash. */
function p2wpkhScriptCode(keyHash: Uint8Array): Uint8Array {
  return Uint8Array.from([0x76, 0xa9, 0x14, ...keyHash, 0x88, 0xac]);
}

function varIntSize(n: number): number {
  return n < 0xfd ? 1 : n <= 0xffff ? 3 : 5;
}

/**
 * The node's own BIP-84 wallet (a descriptor wallet's `wpkh` keys, receive chain /0 and change
 * chain /1) with real secp256k1 keys. It funds sendtoaddress and receives coinbase rewards.
 */
export class NodeWallet {
  private readonly account: HDKey;
  private readonly network: Network;
  private readonly byScript = new Map<string, WalletKey>();
  private nextReceive = 0;
  private nextChange = 0;
  private readonly feeRate: bigint;

  constructor(options: { seed: Uint8Array; coinType: number; network: Network; feeRateSatPerVb: number }) {
    this.account = HDKey.fromMasterSeed(options.seed).derive(`m/84'/${options.coinType}'/0'`);
    this.network = options.network;
    this.feeRate = BigInt(options.feeRateSatPerVb);
  }

  newAddress(): string {
    return this.deriveKey(0, this.nextReceive++).address;
  }

  private newChangeKey(): WalletKey {
    return this.deriveKey(1, this.nextChange++);
  }

  private deriveKey(branch: number, index: number): WalletKey {
    const node = this.account.deriveChild(branch).deriveChild(index);
    const { privateKey, publicKey } = node;
    if (privateKey === null || publicKey === null) throw new Error("wallet key derivation failed");
    const keyHash = crypto.hash160(publicKey);
    const key: WalletKey = {
      privateKey,
      publicKey,
      keyHash,
      script: p2wpkhScript(keyHash),
      address: bitcoinAddress.toBech32(keyHash, 0, this.network.bech32),
    };
    this.byScript.set(hex(key.script), key);
    return key;
  }

  keyFor(scriptHex: string): WalletKey | undefined {
    return this.byScript.get(scriptHex);
  }

  /**
   * A signed version-2 transaction paying `outputs`, funded from `coins` (largest first) at the
   * wallet fee rate, change last. `subtractFee` takes the fee from the first output instead.
   */
  createTransaction(
    outputs: PaymentOutput[],
    coins: SpendableOutput[],
    options: { lockTime: number; subtractFee?: boolean },
  ): Transaction {
    const target = outputs.reduce((sum, output) => sum + output.value, 0n);
    const outputBytes = outputs.reduce((sum, o) => sum + 8 + varIntSize(o.script.length) + o.script.length, 0);
    const changeBytes = 8 + 1 + 22;
    const sorted = [...coins].sort((a, b) => (a.value > b.value ? -1 : a.value < b.value ? 1 : 0));
    const selected: SpendableOutput[] = [];
    let total = 0n;
    let fee = 0n;
    for (const coin of sorted) {
      selected.push(coin);
      total += coin.value;
      fee = this.fee(selected.length, outputs.length + 1, outputBytes + changeBytes);
      if (total >= (options.subtractFee ? target : target + fee)) break;
    }
    if (selected.length === 0 || total < (options.subtractFee ? target : target + fee)) {
      throw new InsufficientFundsError("Insufficient funds");
    }
    const tx = new Transaction();
    tx.version = 2;
    tx.locktime = options.lockTime;
    for (const coin of selected) {
      tx.addInput(Buffer.from(coin.txid, "hex").reverse(), coin.vout, SEQUENCE_RBF);
    }
    outputs.forEach((output, index) => {
      const payer = options.subtractFee === true && index === 0;
      const value = payer ? output.value - fee : output.value;
      if (payer && value <= 0n) throw new InsufficientFundsError("The transaction amount is too small to pay the fee");
      tx.addOutput(output.script, value);
    });
    const change = total - target - (options.subtractFee ? 0n : fee);
    if (change >= DUST_LIMIT) tx.addOutput(this.newChangeKey().script, change);
    selected.forEach((coin, index) => {
      const hash = tx.hashForWitnessV0(index, p2wpkhScriptCode(coin.key.keyHash), coin.value, Transaction.SIGHASH_ALL);
      const signature = script.signature.encode(ecc.sign(hash, coin.key.privateKey), Transaction.SIGHASH_ALL);
      tx.setWitness(index, [signature, coin.key.publicKey]);
    });
    return tx;
  }

  /** Fee for a P2WPKH-input transaction: virtual size (witness at a quarter) times the fee rate. */
  private fee(inputs: number, outputs: number, outputBytes: number): bigint {
    const base = 4 + 4 + varIntSize(inputs) + varIntSize(outputs) + outputBytes + inputs * (32 + 4 + 1 + 4);
    const witness = 2 + inputs * (1 + 1 + 72 + 1 + 33);
    return BigInt(Math.ceil((base * 4 + witness) / 4)) * this.feeRate;
  }
}
