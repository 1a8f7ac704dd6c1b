import { useState } from "preact/hooks";
import { merchantApi } from "../merchant-api.ts";
import { customerName } from "../pages/Customers.tsx";
import { MoneyOn, Spread, transferPath } from "../pages/Transfers.tsx";
import { type Quote, type QuoteRequest, quoteApi } from "../quote-api.ts";
import { href, linkHandler } from "../router.ts";
import { Amount } from "./Amount.tsx";
import { ConfirmAction } from "./ConfirmAction.tsx";
import { DescriptionList } from "./DescriptionList.tsx";
import { SelectField, TextField } from "./Fields.tsx";
import { formatDateTime } from "./format.ts";
import { Loading } from "./Loading.tsx";
import { Notice } from "./Notice.tsx";
import { useAction } from "./useAction.ts";
import { useLoad } from "./useLoad.ts";

type SourceMethod = QuoteRequest["source"]["method"];
type DestinationType = QuoteRequest["destination"]["type"];
type Side = "source" | "destination";

const SOURCES: readonly SourceMethod[] = ["BALANCE", "BANK_TRANSFER", "CRYPTO_DEPOSIT"];
const SOURCE_NAMES: Record<SourceMethod, string> = {
  BALANCE: "Our USD balance",
  BANK_TRANSFER: "The customer pays by bank",
  CRYPTO_DEPOSIT: "The customer pays in crypto",
};
const DESTINATIONS: readonly DestinationType[] = ["CRYPTO_ADDRESS", "US_BANK_ACCOUNT"];
const DESTINATION_NAMES: Record<DestinationType, string> = {
  CRYPTO_ADDRESS: "A crypto address",
  US_BANK_ACCOUNT: "A US bank account",
};
const SIDES: readonly Side[] = ["source", "destination"];
const SIDE_NAMES: Record<Side, string> = { source: "What the payer pays", destination: "What the payee receives" };
const ACCOUNT_TYPES = ["CHECKING", "SAVINGS"] as const;

/** The form's fields, all as typed (the server validates them: its 4xx message is shown as it is). */
interface PayoutForm {
  customerId: string;
  source: SourceMethod;
  sourceAsset: string;
  sourceNetwork: string;
  destination: DestinationType;
  asset: string;
  network: string;
  address: string;
  holder: string;
  routing: string;
  account: string;
  accountType: (typeof ACCOUNT_TYPES)[number];
  side: Side;
  amount: string;
}

type TextKey = "sourceAsset" | "asset" | "address" | "holder" | "routing" | "account" | "amount";
type ChoiceKey = "customerId" | "sourceNetwork" | "network";
type SelectKey = "source" | "destination" | "accountType" | "side";

function quoteRequest(f: PayoutForm): QuoteRequest {
  const source: QuoteRequest["source"] =
    f.source === "CRYPTO_DEPOSIT"
      ? { method: "CRYPTO_DEPOSIT", asset: f.sourceAsset.trim(), network: f.sourceNetwork }
      : { method: f.source };
  const destination: QuoteRequest["destination"] =
    f.destination === "CRYPTO_ADDRESS"
      ? { type: "CRYPTO_ADDRESS", asset: f.asset.trim(), network: f.network, address: f.address.trim() }
      : {
          type: "US_BANK_ACCOUNT",
          account_holder_name: f.holder.trim(),
          routing_number: f.routing.trim(),
          account_number: f.account.trim(),
          account_type: f.accountType,
        };
  const amount = f.amount.trim();
  return {
    customer_id: f.customerId,
    source,
    destination,
    ...(f.side === "source" ? { source_amount: amount } : { destination_amount: amount }),
  };
}

/** The quote as the payer and payee will see it, before anything moves: amounts, fee, spread, rate, expiry. */
function QuoteSummary(props: { quote: Quote }) {
  const q = props.quote;
  return (
    <DescriptionList
      card
      items={[
        { term: "Payer pays", value: <MoneyOn money={q.source_amount} /> },
        { term: "Payee receives", value: <MoneyOn money={q.destination_amount} /> },
        { term: "Fee", value: <Amount value={q.fee.value} asset={q.fee.currency} /> },
        { term: "Spread", value: <Spread spread={q} /> },
        {
          term: "Rate",
          value: `1 ${q.rate.base_currency} = ${q.rate.value} ${q.rate.quote_currency}`,
          valueClass: "mono",
        },
        { term: "Valid until", value: formatDateTime(q.expires_at) },
      ]}
    />
  );
}

/**
 * "New payout" on the transfers page: pick the customer, who pays and where it goes, get a quote
 * (POST /v1/quotes through the session), see its fee and spread, then confirm (asked twice: it
 * starts the transfer). The transfer is sent with the quote's own idempotency key, so a retry after
 * a lost answer gets the same transfer, never a second one.
 */
export function NewPayout(props: { merchantId: string; onCreated: () => void; onClose: () => void }) {
  const [choices, reloadChoices] = useLoad(async () => {
    const [customers, chains] = await Promise.all([
      merchantApi.customers(props.merchantId, 1),
      merchantApi.chains(props.merchantId),
    ]);
    return {
      customers: customers.items.map((c): [string, string] => [c.id, customerName(c)]),
      networks: chains.items.map((c): [string, string] => [c.chain, c.chain]),
    };
  }, props.merchantId);
  const [form, setForm] = useState<PayoutForm>({
    customerId: "",
    source: "BALANCE",
    sourceAsset: "",
    sourceNetwork: "",
    destination: "CRYPTO_ADDRESS",
    asset: "USDC",
    network: "",
    address: "",
    holder: "",
    routing: "",
    account: "",
    accountType: "CHECKING",
    side: "source",
    amount: "",
  });
  const [quote, setQuote] = useState<Quote | undefined>();
  const [paid, setPaid] = useState<string | undefined>();
  const quoting = useAction();
  const paying = useAction();
  const set =
    <K extends keyof PayoutForm>(key: K) =>
    (value: PayoutForm[K]) => {
      setForm((f) => ({ ...f, [key]: value }));
      setQuote(undefined);
    };

  // The form's fields: each bound to its key, its id `payout-<name>` (selects of fixed options, free
  // text, and picks among the loaded customers or networks).
  const text = (
    key: TextKey,
    name: string,
    label: string,
    look?: { mono?: boolean; grow?: boolean; decimal?: boolean },
  ) => <TextField id={`payout-${name}`} label={label} value={form[key]} onInput={set(key)} {...look} />;
  const select = <K extends SelectKey>(
    key: K,
    name: string,
    label: string,
    options: readonly PayoutForm[K][],
    labels?: Readonly<Record<PayoutForm[K], string>>,
  ) => (
    <SelectField
      id={`payout-${name}`}
      label={label}
      value={form[key]}
      options={options}
      {...(labels && { labels })}
      onChange={set(key)}
    />
  );
  const choice = (key: ChoiceKey, name: string, label: string, choices: ReadonlyArray<readonly [string, string]>) => (
    <ChoiceField id={`payout-${name}`} label={label} choices={choices} value={form[key]} onChange={set(key)} />
  );

  const getQuote = async (event: Event) => {
    event.preventDefault();
    setPaid(undefined);
    const created = await quoting.run(async () => {
      const made = await quoteApi.create(props.merchantId, quoteRequest(form));
      return quoteApi.get(props.merchantId, made.id);
    });
    if (created) setQuote(created);
  };
  const pay = async () => {
    if (!quote) return false;
    const transfer = await paying.run(() => quoteApi.pay(props.merchantId, quote.id, `payout-${quote.id}`));
    if (!transfer) return false;
    setPaid(transfer.id);
    setQuote(undefined);
    props.onCreated();
    return true;
  };

  return (
    <section class="card form-card" aria-labelledby="new-payout-title">
      <h2 id="new-payout-title">New payout</h2>
      {paid && (
        <Notice kind="success">
          Transfer started.{" "}
          <a
            href={href(transferPath(props.merchantId, paid))}
            onClick={linkHandler(transferPath(props.merchantId, paid))}
          >
            Open the transfer
          </a>
        </Notice>
      )}
      <Loading loaded={choices} what="customers and networks" retry={reloadChoices}>
        {({ customers, networks }) => (
          <form onSubmit={getQuote}>
            {quoting.error && <Notice kind="error">{quoting.error}</Notice>}
            <div class="form-row">
              {choice("customerId", "customer", "Customer", customers)}
              {select("source", "source", "Who pays", SOURCES, SOURCE_NAMES)}
              {form.source === "CRYPTO_DEPOSIT" && (
                <>
                  {text("sourceAsset", "source-asset", "Paid in (asset)")}
                  {choice("sourceNetwork", "source-network", "Network", networks)}
                </>
              )}
            </div>
            <div class="form-row">
              {select("destination", "destination", "Pay out to", DESTINATIONS, DESTINATION_NAMES)}
              {form.destination === "CRYPTO_ADDRESS" ? (
                <>
                  {text("asset", "asset", "Asset")}
                  {choice("network", "network", "Network", networks)}
                  {text("address", "address", "Address", { mono: true, grow: true })}
                </>
              ) : (
                <>
                  {text("holder", "holder", "Account holder")}
                  {text("routing", "routing", "Routing number", { mono: true })}
                  {text("account", "account", "Account number", { mono: true })}
                  {select("accountType", "account-type", "Account type", ACCOUNT_TYPES)}
                </>
              )}
            </div>
            <div class="form-row">
              {select("side", "side", "The amount is", SIDES, SIDE_NAMES)}
              {text("amount", "amount", "Amount", { decimal: true })}
              <button type="submit" class="button primary" disabled={quoting.busy}>
                Get a quote
              </button>
              <button type="button" class="button secondary" onClick={props.onClose}>
                Close
              </button>
            </div>
          </form>
        )}
      </Loading>
      {quote && (
        <>
          <h3>Quote</h3>
          <QuoteSummary quote={quote} />
          {paying.error && <Notice kind="error">{paying.error}</Notice>}
          <ConfirmAction
            legend="Confirm the payout"
            warning="This starts the transfer at this quote's rate and fee."
            confirm="Start the payout"
            run={pay}
          >
            Pay out…
          </ConfirmAction>
        </>
      )}
    </section>
  );
}

/** A required pick of one of `choices` ([value, label]), "Choose…" until one is picked. */
function ChoiceField(props: {
  id: string;
  label: string;
  choices: ReadonlyArray<readonly [string, string]>;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select id={props.id} required value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        <option value="">Choose…</option>
        {props.choices.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
}
