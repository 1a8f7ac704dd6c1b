import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The real camt.053 statements (../shared/fixtures/camt053, see its SOURCES.md), read where they live. */
const CAMT_DIR = fileURLToPath(new URL("../../../shared/fixtures/camt053/", import.meta.url));
const RETURN_SAMPLE = `${CAMT_DIR}camt053-v02-nl-eur-reversal-batch.xml`;
export const haveCamtReturnSample = existsSync(RETURN_SAMPLE);
if (!haveCamtReturnSample)
  console.warn(`skipping camt.053 payout returns: ${RETURN_SAMPLE} is absent (../shared not beside the repo)`);

/**
 * A camt.053 statement returning one of our payouts, made from the one real return in the fixtures
 * (the NL file's second entry: a booked reversal, `RvslInd` true, whose TxDtls carry
 * `Refs/EndToEndId` and `RtrInf/Rsn`). Its shape is kept as the bank wrote it; its facts are ours:
 * the entry reverses our debit (CRDT instead of the sample's DBIT), in USD, of the payout's amount,
 * one transaction quoting the payout's end-to-end id, with the ACH code the payee's bank gave as
 * `Rsn/Prtry` (where a scheme's own codes go; the sample has the ISO `Cd` AC06). The statement
 * holds that one entry only.
 */
export function camtPayoutReturn(input: { endToEndId: string; amount: string; achCode: string }): string {
  const xml = readFileSync(RETURN_SAMPLE, "utf8");
  const entries = [...xml.matchAll(/<Ntry>[\s\S]*?<\/Ntry>/g)].map((m) => m[0]);
  const reversal = entries[1];
  const first = entries[0];
  const last = entries[entries.length - 1];
  if (!reversal || !first || !last || !reversal.includes("<RvslInd>true</RvslInd>")) {
    throw new Error(`${RETURN_SAMPLE}: its second entry is not the reversal SOURCES.md describes`);
  }
  const transactions = [...reversal.matchAll(/<TxDtls>[\s\S]*?<\/TxDtls>/g)].map((m) => m[0]);
  const [kept, ...dropped] = transactions;
  if (!kept || dropped.length !== 1) throw new Error(`${RETURN_SAMPLE}: the reversal has not its two TxDtls`);
  const original = /<EndToEndId>([^<]+)<\/EndToEndId>/.exec(kept)?.[1] ?? "";
  let entry = reversal.replace(dropped[0] as string, "").replace(/\n\s*\n/g, "\n");
  entry = entry
    .replaceAll("<CdtDbtInd>DBIT</CdtDbtInd>", "<CdtDbtInd>CRDT</CdtDbtInd>")
    .replaceAll('Ccy="EUR"', 'Ccy="USD"')
    .replaceAll(">664.05<", `>${input.amount}<`)
    .replaceAll(">564.05<", `>${input.amount}<`)
    .replace("<NbOfTxs>2</NbOfTxs>", "<NbOfTxs>1</NbOfTxs>")
    .replaceAll(original, input.endToEndId)
    .replace(/<Rsn>\s*<Cd>AC06<\/Cd>\s*<\/Rsn>/, `<Rsn><Prtry>${input.achCode}</Prtry></Rsn>`);
  const start = xml.indexOf(first);
  const end = xml.indexOf(last) + last.length;
  return xml.slice(0, start) + entry + xml.slice(end);
}
