import { XMLParser, XMLValidator } from "fast-xml-parser";
import { StatementFormatError, type StatementLine, type StatementPayer, statementLine } from "./statement-line.ts";

/**
 * ISO 20022 camt.053 (Bank-to-Customer Statement), versions 001.02 to 001.08: the shapes that
 * differ between them (`Sts` vs `Sts/Cd`, `Dbtr/Nm` vs `Dbtr/Pty/Nm`, `IBAN` vs `Othr/Id`,
 * `BookgDt/Dt` vs `DtTm`) are read in either form. Only booked entries (`BOOK`) become lines;
 * pending and informational ones are left out. A batch entry whose transaction details carry
 * amounts that add up to the entry's becomes one line per transaction (each may name its own
 * virtual account and reference); otherwise the entry is one line.
 */

type Node = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  removeNSPrefix: true,
  // Every value stays a string: amounts and references are never numbers.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) => ["Stmt", "Ntry", "TxDtls", "NtryDtls", "Ustrd", "AdrLine"].includes(name),
});

function child(node: unknown, ...path: string[]): unknown {
  let current = node;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Node)[key];
    if (Array.isArray(current)) current = current[0];
  }
  return current;
}

/** The text of an element (a string, or the `#text` of an element with attributes). */
function text(node: unknown, ...path: string[]): string | undefined {
  const value = child(node, ...path);
  if (typeof value === "string") return value.length > 0 ? value : undefined;
  if (value !== null && typeof value === "object" && typeof (value as Node)["#text"] === "string") {
    return (value as Node)["#text"] as string;
  }
  return undefined;
}

function list(node: unknown, key: string): Node[] {
  const value = node !== null && typeof node === "object" ? (node as Node)[key] : undefined;
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]) as Node[];
}

function amountOf(node: unknown, location: string): { amount: string; currency: string } {
  const amt = child(node, "Amt");
  const amount = text(node, "Amt");
  const currency = amt !== null && typeof amt === "object" ? (amt as Node)["@Ccy"] : undefined;
  if (amount === undefined) throw new StatementFormatError(location, "Amt is missing");
  if (typeof currency !== "string") throw new StatementFormatError(location, "Amt has no Ccy attribute");
  return { amount, currency };
}

function accountId(node: unknown): string | undefined {
  return text(node, "Id", "IBAN") ?? text(node, "Id", "Othr", "Id");
}

function partyName(parties: unknown, role: "Dbtr" | "Cdtr"): string | undefined {
  return text(parties, role, "Nm") ?? text(parties, role, "Pty", "Nm");
}

/** The debtor of a credit line: its account (IBAN or Othr/Id), name and bank (DbtrAgt), or null without an account. */
function payerOf(tx: unknown): StatementPayer | null {
  const parties = child(tx, "RltdPties");
  const iban = text(parties, "DbtrAcct", "Id", "IBAN");
  const account = iban ?? text(parties, "DbtrAcct", "Id", "Othr", "Id");
  if (account === undefined) return null;
  const agent = child(tx, "RltdAgts", "DbtrAgt", "FinInstnId");
  return {
    name: partyName(parties, "Dbtr") ?? null,
    account: account.replace(/\s+/g, ""),
    accountScheme: iban === undefined ? "OTHER" : "IBAN",
    bic: text(agent, "BICFI") ?? text(agent, "BIC") ?? null,
    routingNumber: text(agent, "ClrSysMmbId", "MmbId") ?? null,
  };
}

function payerReference(tx: unknown): string | undefined {
  const endToEnd = text(tx, "Refs", "EndToEndId");
  return (
    text(tx, "RmtInf", "Strd", "CdtrRefInf", "Ref") ??
    (endToEnd && endToEnd !== "NOTPROVIDED" ? endToEnd : undefined) ??
    text(tx, "RmtInf", "Ustrd")
  );
}

function endToEndIdOf(tx: unknown): string | null {
  const endToEnd = text(tx, "Refs", "EndToEndId");
  return endToEnd && endToEnd !== "NOTPROVIDED" ? endToEnd : null;
}

/** A return's reason (RtrInf: the code, ISO `Cd` or the scheme's `Prtry` such as ACH R03, then its text). */
function returnReasonOf(tx: unknown): string | null {
  const info = child(tx, "RtrInf");
  if (info === undefined) return null;
  const code = text(info, "Rsn", "Cd") ?? text(info, "Rsn", "Prtry");
  const words = text(info, "AddtlInf");
  const reason = [code, words].filter((part) => part !== undefined).join(" ");
  return reason.length > 0 ? reason : null;
}

function decimalSum(amounts: string[]): string {
  const scale = 5;
  const total = amounts.reduce((sum, amount) => {
    const [whole = "0", fraction = ""] = amount.split(".");
    return sum + BigInt(whole) * 10n ** BigInt(scale) + BigInt(fraction.padEnd(scale, "0") || "0");
  }, 0n);
  return total.toString();
}

export function parseCamt053(xml: string): StatementLine[] {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    throw new StatementFormatError(`line ${valid.err.line}`, `not well-formed XML (${valid.err.msg})`);
  }
  const document = parser.parse(xml) as Node;
  const root = child(document, "Document", "BkToCstmrStmt");
  if (root === undefined) throw new StatementFormatError("Document", "not a camt.053 statement (no BkToCstmrStmt)");
  const statements = list(root, "Stmt");
  if (statements.length === 0) throw new StatementFormatError("BkToCstmrStmt", "no Stmt");
  const lines: StatementLine[] = [];
  statements.forEach((statement, s) => {
    const where = `Stmt[${s + 1}]`;
    const statementAccount = accountId(child(statement, "Acct"));
    if (statementAccount === undefined)
      throw new StatementFormatError(`${where}/Acct`, "no account Id (IBAN or Othr/Id)");
    list(statement, "Ntry").forEach((entry, n) => {
      const at = `${where}/Ntry[${n + 1}]`;
      const status = text(entry, "Sts") ?? text(entry, "Sts", "Cd");
      if (status === undefined) throw new StatementFormatError(at, "Sts is missing");
      if (status !== "BOOK") return;
      const direction = text(entry, "CdtDbtInd");
      if (direction !== "CRDT" && direction !== "DBIT")
        throw new StatementFormatError(at, "CdtDbtInd must be CRDT or DBIT");
      const { amount, currency } = amountOf(entry, at);
      const bookingDate = text(entry, "BookgDt", "Dt") ?? text(entry, "BookgDt", "DtTm");
      if (bookingDate === undefined) throw new StatementFormatError(at, "BookgDt is missing");
      const entryRefs = [text(entry, "AcctSvcrRef"), text(entry, "NtryRef")].filter((r) => r !== undefined);
      const details = list(entry, "NtryDtls").flatMap((d) => list(d, "TxDtls"));
      const shared = {
        direction: direction === "CRDT" ? ("CREDIT" as const) : ("DEBIT" as const),
        reversal: text(entry, "RvslInd") === "true",
        currency,
        bookingDate,
      };
      const detailAmounts = details.map((tx) => text(tx, "Amt"));
      const perTransaction =
        details.length > 1 &&
        detailAmounts.every((a) => a !== undefined) &&
        details.every((tx) => amountOf(tx, at).currency === currency) &&
        decimalSum(detailAmounts as string[]) === decimalSum([amount]);
      const parts = perTransaction ? details.map((tx, i) => ({ tx, i })) : [{ tx: details[0], i: -1 }];
      for (const { tx, i } of parts) {
        const location = i >= 0 ? `${at}/TxDtls[${i + 1}]` : at;
        const parties = child(tx, "RltdPties");
        const references = [
          ...entryRefs,
          text(tx, "Refs", "AcctSvcrRef"),
          text(tx, "Refs", "UETR"),
          text(tx, "Refs", "TxId"),
          text(tx, "Refs", "InstrId"),
        ].filter((r) => r !== undefined);
        const bankReference = [...new Set(references)].join("/");
        // Money in names the credited (virtual) account as the creditor's; money out leaves the
        // statement's own account, and its creditor account is the payee's.
        const credited = shared.direction === "CREDIT" ? accountId(child(parties, "CdtrAcct")) : undefined;
        lines.push(
          statementLine(
            location,
            {
              ...shared,
              account: credited ?? statementAccount,
              amount: i >= 0 ? amountOf(tx, location).amount : amount,
              bankReference,
              reference: payerReference(tx) ?? text(entry, "AddtlNtryInf") ?? null,
              counterparty: partyName(parties, shared.direction === "CREDIT" ? "Dbtr" : "Cdtr") ?? null,
              payer: shared.direction === "CREDIT" ? payerOf(tx) : null,
              endToEndId: endToEndIdOf(tx),
              returnReason: returnReasonOf(tx),
            },
            String(i),
          ),
        );
      }
    });
  });
  return lines;
}
