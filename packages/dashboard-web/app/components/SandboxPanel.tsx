import { useState } from "preact/hooks";
import type { User } from "../api.ts";
import { canUseSandbox, merchantApi } from "../merchant-api.ts";
import { SelectField, TextField } from "./Fields.tsx";
import { errorText } from "./format.ts";
import { Notice } from "./Notice.tsx";
import { useLoad } from "./useLoad.ts";

/**
 * Sandbox only: send a test deposit on any local chain to one of the merchant's wallets (a real
 * transfer the indexer then sees), or simulate a bank credit to a virtual account; both are the
 * /v1/sandbox routes run for this merchant. Hidden when the deployment or the merchant is production.
 */
export function SandboxPanel(props: { user: User; merchantId: string; onSent: () => void }) {
  const [info] = useLoad(() => merchantApi.sandbox(props.merchantId), props.merchantId);
  const [wallets] = useLoad(() => merchantApi.wallets(props.merchantId, 1), props.merchantId);
  const [chain, setChain] = useState("");
  const [asset, setAsset] = useState("");
  const [walletId, setWalletId] = useState("");
  const [amount, setAmount] = useState("25.00");
  const [account, setAccount] = useState("");
  const [bankAmount, setBankAmount] = useState("100.00");
  const [result, setResult] = useState<{ kind: "error" | "success"; text: string } | undefined>();
  const [busy, setBusy] = useState(false);
  if (info.state !== "ready" || !info.value.enabled || !canUseSandbox(props.user.role)) return null;
  const chains = info.value.chains;
  const chosenChain = chain || chains[0]?.chain || "";
  const assets = chains.find((c) => c.chain === chosenChain)?.assets ?? [];
  const chosenAsset = assets.includes(asset) ? asset : (assets[0] ?? "");
  const walletList = wallets.state === "ready" ? wallets.value.items : [];
  const chosenWallet = walletList.find((w) => w.id === walletId) ?? walletList[0];

  const run = async (action: () => Promise<string>) => {
    setBusy(true);
    setResult(undefined);
    try {
      setResult({ kind: "success", text: await action() });
      props.onSent();
    } catch (e) {
      setResult({ kind: "error", text: errorText(e) });
    } finally {
      setBusy(false);
    }
  };
  const sendDeposit = (event: Event) => {
    event.preventDefault();
    const address = chosenWallet?.destinations.find((d) => d.chain === chosenChain)?.address;
    if (!address) {
      setResult({ kind: "error", text: "Create a wallet first: the test deposit goes to one of its addresses." });
      return;
    }
    void run(async () => {
      await merchantApi.sandboxDeposit(props.merchantId, {
        address,
        asset: chosenAsset,
        amount,
        chain: chosenChain,
      });
      return `Test deposit of ${amount} ${chosenAsset} on ${chosenChain} queued: it appears below once the chain shows it.`;
    });
  };
  const creditBank = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      await merchantApi.sandboxBankCredit(props.merchantId, { virtual_account_id: account.trim(), amount: bankAmount });
      return `Bank credit of ${bankAmount} USD received and credited.`;
    });
  };

  return (
    <section class="card sandbox" aria-labelledby="sandbox-title">
      <h2 id="sandbox-title">Sandbox</h2>
      {result && <Notice kind={result.kind}>{result.text}</Notice>}
      {chains.length === 0 ? (
        <p class="muted">No local sandbox chain runs in this deployment.</p>
      ) : (
        <form class="inline-form" onSubmit={sendDeposit}>
          <SelectField
            id="sandbox-chain"
            label="Chain"
            value={chosenChain}
            options={chains.map((c) => c.chain)}
            onChange={setChain}
          />
          <SelectField id="sandbox-asset" label="Asset" value={chosenAsset} options={assets} onChange={setAsset} />
          <div class="field">
            <label for="sandbox-wallet">Wallet</label>
            <select
              id="sandbox-wallet"
              value={chosenWallet?.id ?? ""}
              onChange={(e) => setWalletId(e.currentTarget.value)}
            >
              {walletList.length === 0 && <option value="">No wallet yet</option>}
              {walletList.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.label}:{" "}
                  {w.destinations.find((d) => d.chain === chosenChain)?.address ?? "no address on this chain"}
                </option>
              ))}
            </select>
          </div>
          <TextField id="sandbox-amount" label="Amount" decimal value={amount} onInput={setAmount} />
          <button type="submit" class="button primary" disabled={busy}>
            Send test deposit
          </button>
        </form>
      )}
      <form class="inline-form" onSubmit={creditBank}>
        <TextField id="sandbox-account" label="Virtual account id" mono value={account} onInput={setAccount} />
        <TextField id="sandbox-bank-amount" label="USD amount" decimal value={bankAmount} onInput={setBankAmount} />
        <button type="submit" class="button secondary" disabled={busy}>
          Simulate bank credit
        </button>
      </form>
    </section>
  );
}
