/**
 * What a search box's text looks for: an amount (digits), a transaction (64 hex digits with or
 * without 0x, or a Solana signature's 80-odd characters), otherwise an address.
 */
export function searchOf(text: string): { tx_hash?: string; address?: string; amount?: string } {
  const value = text.trim();
  if (!value) return {};
  if (/^\d+(\.\d+)?$/.test(value)) return { amount: value };
  if (/^(0x)?[0-9a-fA-F]{64}$/.test(value) || value.length >= 80) return { tx_hash: value };
  return { address: value };
}
