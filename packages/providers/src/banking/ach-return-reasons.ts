/**
 * The NACHA return codes a payee's bank gives most (R01-R10): a statement line returning a payout
 * often carries the bare code (camt.053 `RtrInf/Rsn/Prtry` "R03"), which says little to a merchant
 * reading the transfer's failure_reason; the code is kept and its meaning added.
 */
const ACH_RETURN_REASONS: Record<string, string> = {
  R01: "Insufficient funds",
  R02: "Account closed",
  R03: "No account/unable to locate account",
  R04: "Invalid account number",
  R05: "Unauthorized debit to consumer account using corporate SEC code",
  R06: "Returned per ODFI's request",
  R07: "Authorization revoked by customer",
  R08: "Payment stopped",
  R09: "Uncollected funds",
  R10: "Customer advises not authorized",
};

/** "R03" -> "R03 No account/unable to locate account"; a reason with words of its own, or another code, as given. */
export function describeReturnReason(reason: string): string {
  const trimmed = reason.trim();
  const meaning = ACH_RETURN_REASONS[trimmed.toUpperCase()];
  return meaning ? `${trimmed.toUpperCase()} ${meaning}` : trimmed;
}
