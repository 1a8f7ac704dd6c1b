import { ValidationError } from "@mp/core";

/**
 * ISO 20022 pain.001.001.03 (Customer Credit Transfer Initiation): the file finance uploads to the
 * bank to pay out a batch of transfers to US bank accounts (statement bank, `payments bank payouts
 * export`). One payment information block (one debtor account, one execution date) with one
 * CdtTrfTxInf per payout. US accounts have no IBAN: accounts are `Othr/Id`, banks their ABA
 * routing number (`ClrSysMmbId`, system USABA). Element order follows the schema's sequences.
 */
export const PAIN001_NAMESPACE = "urn:iso:std:iso:20022:tech:xsd:pain.001.001.03";

export interface Pain001Payment {
  /** At most 35 characters: what the bank's statement quotes back. */
  endToEndId: string;
  /** Decimal string in whole cents. */
  amount: string;
  currency: string;
  creditor: { name: string; accountNumber: string; routingNumber: string; accountType: "CHECKING" | "SAVINGS" };
  remittance: string;
}

export interface Pain001Batch {
  messageId: string;
  createdAt: Date;
  /** YYYY-MM-DD: when the bank should execute the batch. */
  executionDate: string;
  debtor: { name: string; accountNumber: string; routingNumber: string; bic?: string | undefined };
  payments: readonly Pain001Payment[];
}

const AMOUNT = /^\d{1,15}\.\d{2}$/;

function xmlEscape(value: string): string {
  return value
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&apos;");
}

/** Max35Text / Max140Text: the schema's length limits, cut rather than refused (names, remittance). */
const text = (value: string, max: number) => xmlEscape(value.slice(0, max));

function cents(amount: string): bigint {
  if (!AMOUNT.test(amount)) throw new ValidationError(`payout amount "${amount}" is not whole cents`, "amount");
  return BigInt(amount.replace(".", ""));
}

function decimal(totalCents: bigint): string {
  return `${totalCents / 100n}.${(totalCents % 100n).toString().padStart(2, "0")}`;
}

/** The sum of the batch's amounts (GrpHdr/CtrlSum), as the file writes it. */
export function pain001ControlSum(payments: readonly Pick<Pain001Payment, "amount">[]): string {
  return decimal(payments.reduce((sum, p) => sum + cents(p.amount), 0n));
}

function agent(routingNumber: string, bic?: string): string {
  return [
    "<FinInstnId>",
    bic ? `<BIC>${xmlEscape(bic)}</BIC>` : "",
    `<ClrSysMmbId><ClrSysId><Cd>USABA</Cd></ClrSysId><MmbId>${xmlEscape(routingNumber)}</MmbId></ClrSysMmbId>`,
    "</FinInstnId>",
  ].join("");
}

function transaction(payment: Pain001Payment): string {
  if (payment.endToEndId.length > 35) throw new ValidationError("EndToEndId is longer than 35 characters", "payout");
  const { creditor } = payment;
  return [
    "<CdtTrfTxInf>",
    `<PmtId><EndToEndId>${xmlEscape(payment.endToEndId)}</EndToEndId></PmtId>`,
    `<Amt><InstdAmt Ccy="${xmlEscape(payment.currency)}">${decimal(cents(payment.amount))}</InstdAmt></Amt>`,
    `<CdtrAgt>${agent(creditor.routingNumber)}</CdtrAgt>`,
    `<Cdtr><Nm>${text(creditor.name, 140)}</Nm></Cdtr>`,
    `<CdtrAcct><Id><Othr><Id>${xmlEscape(creditor.accountNumber)}</Id></Othr></Id>`,
    `<Tp><Cd>${creditor.accountType === "SAVINGS" ? "SVGS" : "CACC"}</Cd></Tp></CdtrAcct>`,
    `<RmtInf><Ustrd>${text(payment.remittance, 140)}</Ustrd></RmtInf>`,
    "</CdtTrfTxInf>",
  ].join("");
}

/** The batch as a pain.001.001.03 document (UTF-8 XML, one element per line group). */
export function buildPain001(batch: Pain001Batch): string {
  if (batch.payments.length === 0) throw new ValidationError("a pain.001 batch needs one payment or more", "payouts");
  if (batch.messageId.length > 35) throw new ValidationError("MsgId is longer than 35 characters", "batch");
  const count = batch.payments.length.toString();
  const controlSum = pain001ControlSum(batch.payments);
  const created = batch.createdAt.toISOString().slice(0, 19);
  const { debtor } = batch;
  const currency = batch.payments[0]?.currency ?? "USD";
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<Document xmlns="${PAIN001_NAMESPACE}">`,
    "<CstmrCdtTrfInitn>",
    `<GrpHdr><MsgId>${xmlEscape(batch.messageId)}</MsgId><CreDtTm>${created}</CreDtTm><NbOfTxs>${count}</NbOfTxs>`,
    `<CtrlSum>${controlSum}</CtrlSum><InitgPty><Nm>${text(debtor.name, 140)}</Nm></InitgPty></GrpHdr>`,
    "<PmtInf>",
    `<PmtInfId>${xmlEscape(batch.messageId)}</PmtInfId><PmtMtd>TRF</PmtMtd><BtchBookg>false</BtchBookg>`,
    `<NbOfTxs>${count}</NbOfTxs><CtrlSum>${controlSum}</CtrlSum>`,
    "<PmtTpInf><SvcLvl><Cd>NURG</Cd></SvcLvl></PmtTpInf>",
    `<ReqdExctnDt>${xmlEscape(batch.executionDate)}</ReqdExctnDt>`,
    `<Dbtr><Nm>${text(debtor.name, 140)}</Nm></Dbtr>`,
    `<DbtrAcct><Id><Othr><Id>${xmlEscape(debtor.accountNumber)}</Id></Othr></Id><Ccy>${xmlEscape(currency)}</Ccy></DbtrAcct>`,
    `<DbtrAgt>${agent(debtor.routingNumber, debtor.bic)}</DbtrAgt>`,
    "<ChrgBr>SLEV</ChrgBr>",
    ...batch.payments.map(transaction),
    "</PmtInf>",
    "</CstmrCdtTrfInitn>",
    "</Document>",
    "",
  ].join("\n");
}
