/**
 * Confirmations of a deposit as the API shows them: head - block_height + 1 (the block itself is
 * the first), capped at the required count; 0 for a REVERSED deposit or an unknown head. `head` is
 * chain_cursors.head_height.
 */
export function liveConfirmations(
  deposit: { status: "PENDING" | "CONFIRMED" | "REVERSED"; blockHeight: number; requiredConfirmations: number },
  head: number | null | undefined,
): number {
  if (deposit.status === "REVERSED") return 0;
  if (deposit.status === "CONFIRMED") return deposit.requiredConfirmations;
  if (head === null || head === undefined) return 0;
  return Math.min(deposit.requiredConfirmations, Math.max(0, head - deposit.blockHeight + 1));
}
