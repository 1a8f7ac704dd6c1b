import { keccakAccountId, type Secp256k1KeyScheme } from "@mp/custody";
import bs58check from "bs58check";
import { TRON_ADDRESS_PREFIX } from "./constants.ts";
import { isTronAddress } from "./tron-address.ts";

/**
 * Tron keys: secp256k1 under m/44'/195' (SLIP-44 coin 195); the address is the base58check of
 * 0x41 || the keccak account id (as Ethereum's), always starting with "T", matched as is.
 */
export const tronKeyScheme: Secp256k1KeyScheme = {
  family: "tron",
  curve: "secp256k1",
  coinPath: () => "m/44'/195'",
  address: ({ point }) => {
    const payload = new Uint8Array(21);
    payload[0] = TRON_ADDRESS_PREFIX;
    payload.set(keccakAccountId(point), 1);
    return bs58check.encode(payload);
  },
  addressKey: (address) => address,
  isAddress: (address) => isTronAddress(address),
};
