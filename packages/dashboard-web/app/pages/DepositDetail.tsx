import type { Deposit } from "../api.ts";
import { Amount } from "../components/Amount.tsx";
import { CopyableValue } from "../components/CopyableValue.tsx";
import { ConfirmationProgress } from "../components/DepositTable.tsx";
import { DescriptionList } from "../components/DescriptionList.tsx";
import { DetailStates } from "../components/DetailStates.tsx";
import { explorerOf } from "../components/explorers.ts";
import { formatDateTime } from "../components/format.ts";
import { InAppLink } from "../components/InAppLink.tsx";
import { Notice } from "../components/Notice.tsx";
import { StateBadge } from "../components/StateBadge.tsx";
import { depositState, heldReasonText } from "../components/states.ts";
import { useLoad } from "../components/useLoad.ts";
import { usePoll } from "../components/usePoll.ts";
import { type ChainNetwork, merchantApi, type ResourceEvent } from "../merchant-api.ts";
import { POLL_MS } from "./Deposits.tsx";

/** What each deposit event says in the timeline. */
const EVENT_TEXT: Readonly<Record<string, string>> = {
  "deposit.pending": "Seen on chain, confirming",
  "deposit.confirmed": "Confirmed and credited",
  "deposit.reversed": "Reversed: a reorganisation removed its block",
  "deposit.held": "Held out of the available balance",
  "deposit.released": "Released to the available balance",
  "deposit.returned": "Returned: owed back to the payer",
};

function Explorer(props: { deposit: Deposit; networks: ChainNetwork[] }) {
  const { deposit } = props;
  const network = props.networks.find((n) => n.chain === deposit.chain)?.network;
  const explorer = explorerOf(deposit.chain, network, deposit.tx_hash);
  if (explorer.url === undefined) return <span class="muted explorer-note">None ({explorer.why})</span>;
  return (
    <a href={explorer.url} target="_blank" rel="noopener noreferrer">
      View on {explorer.name}
      <span class="visually-hidden"> (opens in a new tab)</span>
    </a>
  );
}

/** The events of the deposit, oldest first, as a timeline; before any, its own timestamps. */
function Timeline(props: { deposit: Deposit; events: ResourceEvent[] }) {
  const { deposit } = props;
  const steps =
    props.events.length > 0
      ? props.events.map((event) => ({
          id: event.id,
          at: event.created_at,
          text: EVENT_TEXT[event.type] ?? event.type,
        }))
      : [
          { id: "seen", at: deposit.created_at, text: EVENT_TEXT["deposit.pending"] ?? "" },
          ...(deposit.confirmed_at ? [{ id: "confirmed", at: deposit.confirmed_at, text: "Confirmed" }] : []),
          ...(deposit.reversed_at ? [{ id: "reversed", at: deposit.reversed_at, text: "Reversed" }] : []),
        ];
  return (
    <ol class="timeline" aria-label="What happened to this deposit">
      {steps.map((step) => (
        <li key={step.id}>
          <time dateTime={step.at}>{formatDateTime(step.at)}</time> {step.text}
        </li>
      ))}
    </ol>
  );
}

/**
 * One deposit: its amount and value, its state (a held one says so and why), the transaction (hash,
 * explorer link per chain and network, block), who sent it and where to, the customer and wallet,
 * the fee and net credit, its timeline; the exact amount and smallest units in a details view.
 * Refreshed every POLL_MS while it confirms.
 */
export function DepositDetail(props: { merchantId: string; depositId: string }) {
  const key = `${props.merchantId}:${props.depositId}`;
  const [loaded, reload] = useLoad(async () => {
    const [deposit, events, chains] = await Promise.all([
      merchantApi.deposit(props.merchantId, props.depositId),
      merchantApi.eventsOf(props.merchantId, props.depositId),
      merchantApi.chains(props.merchantId),
    ]);
    return { deposit, events: events.items.slice().reverse(), networks: chains.items };
  }, key);
  const confirming = loaded.state === "ready" && loaded.value.deposit.status === "PENDING";
  usePoll(reload, POLL_MS, confirming);

  const back = `/merchants/${props.merchantId}/deposits`;
  const backLink = <InAppLink to={back}>← Deposits</InAppLink>;
  return (
    <DetailStates what="Deposit" backLink={backLink} loaded={loaded} retry={reload}>
      {({ deposit, events, networks }) => {
        const state = depositState(deposit);
        const network = networks.find((n) => n.chain === deposit.chain)?.network;
        return (
          <section aria-labelledby="deposit-title">
            {backLink}
            <h1 id="deposit-title">
              Deposit of <Amount value={deposit.amount} asset={deposit.asset} />
            </h1>
            {deposit.hold_status === "HELD" && (
              <Notice kind="info">
                Held: {heldReasonText(deposit.held_reason)}. It is credited but kept out of the available balance until
                an operator releases or returns it.
              </Notice>
            )}
            <DescriptionList
              card
              items={[
                {
                  term: "Status",
                  value: (
                    <>
                      <StateBadge state={state} code={deposit.status} />
                      {deposit.held_reason && deposit.hold_status !== "HELD" && (
                        <span class="muted"> (was held: {heldReasonText(deposit.held_reason)})</span>
                      )}
                    </>
                  ),
                },
                { term: "Confirmations", value: <ConfirmationProgress deposit={deposit} /> },
                {
                  term: "Value",
                  value:
                    deposit.amount_usd === null ? (
                      <span class="muted">Priced when it confirms</span>
                    ) : (
                      <Amount value={deposit.amount_usd} asset="USD" />
                    ),
                },
                { term: "Fee", value: deposit.fee_usd === null ? "—" : <Amount value={deposit.fee_usd} asset="USD" /> },
                {
                  term: "Net credited",
                  value: deposit.net_amount_usd === null ? "—" : <Amount value={deposit.net_amount_usd} asset="USD" />,
                },
                {
                  term: "Chain",
                  value: (
                    <>
                      {deposit.chain}
                      {network && <span class="muted"> ({network === "regtest" ? "local network" : network})</span>}
                    </>
                  ),
                },
                {
                  term: "Transaction",
                  value: <CopyableValue value={deposit.tx_hash} what="transaction hash" breakable />,
                },
                { term: "Explorer", value: <Explorer deposit={deposit} networks={networks} /> },
                { term: "Block", value: deposit.block_height.toLocaleString(), valueClass: "mono" },
                {
                  term: "From",
                  value: deposit.from_address ? (
                    <CopyableValue value={deposit.from_address} what="sender address" breakable />
                  ) : (
                    <span class="muted">Not known for this transaction</span>
                  ),
                },
                {
                  term: "To",
                  value: <CopyableValue value={deposit.to_address} what="receiving address" breakable />,
                },
                {
                  term: "Wallet",
                  value: (
                    <InAppLink to={`/merchants/${props.merchantId}/wallets/${deposit.wallet_id}`}>
                      Open the wallet
                    </InAppLink>
                  ),
                },
                {
                  term: "Customer",
                  value: deposit.customer_id ? (
                    <InAppLink to={`/merchants/${props.merchantId}/customers/${deposit.customer_id}`}>
                      Open the customer
                    </InAppLink>
                  ) : (
                    <span class="muted">None (a merchant wallet)</span>
                  ),
                },
                { term: "Id", value: <CopyableValue value={deposit.id} what="deposit id" breakable /> },
              ]}
            />
            <h2>Timeline</h2>
            <Timeline deposit={deposit} events={events} />
            <details class="exact">
              <summary>Exact amounts</summary>
              <DescriptionList
                items={[
                  { term: "Amount", value: `${deposit.amount} ${deposit.asset}`, valueClass: "mono" },
                  { term: "Smallest units", value: deposit.amount_raw, valueClass: "mono" },
                  { term: "USD rate", value: deposit.usd_rate ?? "—", valueClass: "mono" },
                  {
                    term: "Token contract",
                    value: deposit.contract_address ?? "native coin",
                    valueClass: "mono break",
                  },
                ]}
              />
            </details>
          </section>
        );
      }}
    </DetailStates>
  );
}
