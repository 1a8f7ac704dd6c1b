import { keccakAccountId, type Secp256k1KeyScheme } from "@mp/custody";
import { bytesToHex, checksumAddress, isAddress } from "viem";

/**
 * EVM keys (DESIGN.md "Address derivation"): secp256k1 under m/44'/60' (BIP-44, SLIP-44 coin 60),
 * one address for the seven EVM chains; the address is the EIP-55 checksummed hex of the keccak
 * account id, matched lowercased.
 */
export const evmKeyScheme: Secp256k1KeyScheme = {
  family: "evm",
  curve: "secp256k1",
  coinPath: () => "m/44'/60'",
  address: ({ point }) => checksumAddress(bytesToHex(keccakAccountId(point))),
  addressKey: (address) => address.toLowerCase(),
  // Hex of 20 bytes, EIP-55 checked when mixed case.
  isAddress: (address) => isAddress(address, { strict: true }),
};
