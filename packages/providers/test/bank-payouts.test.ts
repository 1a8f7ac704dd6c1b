import { XMLParser, XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import {
  type BankPayoutRequest,
  buildPain001,
  createSandboxBankingProvider,
  PAIN001_NAMESPACE,
  type Pain001Payment,
  SANDBOX_PAYOUT_MAGIC,
} from "../src/index.ts";

const T0 = Date.UTC(2026, 10, 25, 12);

const payoutRequest = (
  accountNumber: string,
  payoutId = "0d7f3c52-1f7e-4f0b-9a51-3a2d7c5e1b90",
): BankPayoutRequest => ({
  payoutId,
  amount: "98.50",
  currency: "USD",
  requestedAt: new Date(T0),
  creditor: { name: "Pat Payee", accountNumber, routingNumber: "021000021", accountType: "CHECKING" },
  remittance: "Transfer TRFABC",
});

describe("sandbox bank payouts", () => {
  const at = (ms: number) => createSandboxBankingProvider({ payoutDelayMs: 1_000, now: () => new Date(T0 + ms) });

  it("PENDING, then SENT, then COMPLETED; a repeated send is the same payout", async () => {
    const sent = await at(0).sendPayout(payoutRequest("123456789"));
    expect(sent.status).toEqual({ status: "PENDING" });
    expect((await at(10_000).sendPayout(payoutRequest("123456789"))).providerPayoutId).toBe(sent.providerPayoutId);
    expect(await at(600).getPayoutStatus(sent.providerPayoutId)).toEqual({ status: "SENT" });
    expect(await at(1_000).getPayoutStatus(sent.providerPayoutId)).toEqual({ status: "COMPLETED" });
    expect(await at(1_000_000).getPayoutStatus(sent.providerPayoutId)).toEqual({ status: "COMPLETED" });
  });

  it(`an account ending ${SANDBOX_PAYOUT_MAGIC.failSuffix} fails; one ending ${SANDBOX_PAYOUT_MAGIC.returnSuffix} completes, then is returned`, async () => {
    const failing = (await at(0).sendPayout(payoutRequest(`44${SANDBOX_PAYOUT_MAGIC.failSuffix}`))).providerPayoutId;
    expect(await at(999).getPayoutStatus(failing)).toEqual({ status: "SENT" });
    expect(await at(1_000).getPayoutStatus(failing)).toEqual({
      status: "FAILED",
      reason: SANDBOX_PAYOUT_MAGIC.failReason,
    });
    const returning = (await at(0).sendPayout(payoutRequest(`44${SANDBOX_PAYOUT_MAGIC.returnSuffix}`)))
      .providerPayoutId;
    expect(await at(1_000).getPayoutStatus(returning)).toEqual({ status: "COMPLETED" });
    expect(await at(2_000).getPayoutStatus(returning)).toEqual({
      status: "RETURNED",
      reason: SANDBOX_PAYOUT_MAGIC.returnReason,
    });
  });

  it("an id it never issued is not found", async () => {
    await expect(at(0).getPayoutStatus("po_sbx_nope")).rejects.toMatchObject({ code: "not_found" });
  });
});

describe("pain.001.001.03", () => {
  const payments: Pain001Payment[] = [
    { ...payoutRequest("123456789"), endToEndId: "A".repeat(32) },
    {
      ...payoutRequest("987654321"),
      endToEndId: "B".repeat(32),
      amount: "0.07",
      creditor: {
        name: "O'Brien & <Sons>",
        accountNumber: "987654321",
        routingNumber: "011000015",
        accountType: "SAVINGS",
      },
    },
  ];
  const xml = buildPain001({
    messageId: "MP0001",
    createdAt: new Date(T0),
    executionDate: "2026-11-25",
    debtor: { name: "Acme Payments LLC", accountNumber: "7000000001", routingNumber: "071000013", bic: "ACMEUS33" },
    payments,
  });
  const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@", parseTagValue: false }).parse(xml);

  it("is well-formed XML in the pain.001.001.03 namespace", () => {
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(parsed.Document["@xmlns"]).toBe(PAIN001_NAMESPACE);
  });

  it("has the required elements, in the group header and the payment information, with the right count and sum", () => {
    const { GrpHdr, PmtInf } = parsed.Document.CstmrCdtTrfInitn;
    expect(GrpHdr).toEqual({
      MsgId: "MP0001",
      CreDtTm: "2026-11-25T12:00:00",
      NbOfTxs: "2",
      CtrlSum: "98.57",
      InitgPty: { Nm: "Acme Payments LLC" },
    });
    expect(PmtInf).toMatchObject({
      PmtInfId: "MP0001",
      PmtMtd: "TRF",
      NbOfTxs: "2",
      CtrlSum: "98.57",
      ReqdExctnDt: "2026-11-25",
      Dbtr: { Nm: "Acme Payments LLC" },
      DbtrAcct: { Id: { Othr: { Id: "7000000001" } }, Ccy: "USD" },
      DbtrAgt: { FinInstnId: { BIC: "ACMEUS33", ClrSysMmbId: { ClrSysId: { Cd: "USABA" }, MmbId: "071000013" } } },
    });
    // Schema order of PmtInf's children (xs:sequence).
    const order = ["PmtInfId", "PmtMtd", "BtchBookg", "NbOfTxs", "CtrlSum", "PmtTpInf", "ReqdExctnDt", "Dbtr"];
    const positions = order.map((tag) => xml.indexOf(`<${tag}>`, xml.indexOf("<PmtInf>")));
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    const [first, second] = PmtInf.CdtTrfTxInf;
    expect(first).toEqual({
      PmtId: { EndToEndId: "A".repeat(32) },
      Amt: { InstdAmt: { "#text": "98.50", "@Ccy": "USD" } },
      CdtrAgt: { FinInstnId: { ClrSysMmbId: { ClrSysId: { Cd: "USABA" }, MmbId: "021000021" } } },
      Cdtr: { Nm: "Pat Payee" },
      CdtrAcct: { Id: { Othr: { Id: "123456789" } }, Tp: { Cd: "CACC" } },
      RmtInf: { Ustrd: "Transfer TRFABC" },
    });
    // Names are escaped, not broken: the parser reads them back as they were.
    expect(second.Cdtr.Nm).toBe("O'Brien & <Sons>");
    expect(xml).toContain("<Nm>O&apos;Brien &amp; &lt;Sons&gt;</Nm>");
    expect(second.CdtrAcct.Tp.Cd).toBe("SVGS");
  });

  it("refuses what the schema would: no payments, amounts beyond cents, ids longer than 35", () => {
    const batch = {
      messageId: "M",
      createdAt: new Date(T0),
      executionDate: "2026-11-25",
      debtor: { name: "D", accountNumber: "1234", routingNumber: "071000013" },
    };
    expect(() => buildPain001({ ...batch, payments: [] })).toThrow(/one payment/);
    expect(() => buildPain001({ ...batch, payments: [{ ...payments[0], amount: "1.001" } as Pain001Payment] })).toThrow(
      /whole cents/,
    );
    expect(() =>
      buildPain001({ ...batch, payments: [{ ...payments[0], endToEndId: "X".repeat(36) } as Pain001Payment] }),
    ).toThrow(/35/);
  });
});
