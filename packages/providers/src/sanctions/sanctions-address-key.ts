const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BECH32_ADDRESS = /^(bc|tb|bcrt)1[0-9a-zA-Z]+$/i;

/**
 * The form two spellings of one address share. EVM addresses appear on the lists in checksum case
 * and in lower case (one account either way), bech32 ones are case-insensitive by definition; every
 * other form (Bitcoin base58, Tron, Solana) is case-sensitive and kept as is.
 */
export function sanctionsAddressKey(address: string): string {
  const trimmed = address.trim();
  return EVM_ADDRESS.test(trimmed) || BECH32_ADDRESS.test(trimmed) ? trimmed.toLowerCase() : trimmed;
}
