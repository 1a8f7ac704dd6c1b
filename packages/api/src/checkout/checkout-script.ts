/**
 * The hosted page's script (plain ES2017, no build, no library): it renders the state the server
 * embedded, then polls /pay/{token}/status every half second while the request can still change, so
 * the page follows the payment (seen, confirmations, paid) without a reload. The countdown runs on
 * the server's clock (the answer's `now`). Text goes in with textContent only.
 */
export const CHECKOUT_SCRIPT = `(() => {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const token = $("checkout").dataset.token;
  const NAMES = { BASE: "Base", ARBITRUM: "Arbitrum", POLYGON: "Polygon", CELO: "Celo", BSC: "BNB Smart Chain",
    ETHEREUM: "Ethereum", OPTIMISM: "Optimism", SOLANA: "Solana", BITCOIN: "Bitcoin", TRON: "Tron" };
  const FINAL = ["paid", "overpaid", "expired", "canceled"];
  let state = JSON.parse($("state").textContent);
  let skew = Date.parse(state.now) - Date.now();
  let selected = state.options.length ? state.options[0].network + ":" + state.options[0].asset : "";
  let redirecting = false;
  const keyOf = (o) => o.network + ":" + o.asset;
  const money = (value) => value + " " + state.currency;
  const show = (id, visible) => { $(id).hidden = !visible; };
  const text = (id, value) => { const el = $(id); if (el.textContent !== value) el.textContent = value; };

  function statusText() {
    const counted = state.payments.filter((p) => p.counted);
    const waiting = counted.filter((p) => p.status === "PENDING");
    switch (state.status) {
      case "open": return "Waiting for your payment.";
      case "processing": {
        const p = waiting[0];
        return p ? "Payment seen: " + p.amount + " " + p.asset + ", " + p.confirmations + " of " +
          p.required_confirmations + " confirmations." : "Payment seen, waiting for confirmations.";
      }
      case "underpaid": return "Received " + money(state.amount_paid) + " of " + money(state.amount) + ". Missing: " +
        money(state.amount_missing) + ". Send the rest before the request expires.";
      case "paid": return "Paid. Thank you!";
      case "overpaid": return "Paid, with " + money(state.amount_excess) + " more than asked. The merchant will be in touch about the excess.";
      case "expired": return Number(state.amount_paid) > 0 ? "This payment request expired. Received " +
        money(state.amount_paid) + " of " + money(state.amount) + ": contact the merchant." : "This payment request expired.";
      case "canceled": return "This payment request was canceled.";
      default: return state.status;
    }
  }

  function renderOptions() {
    const select = $("option");
    const keys = state.options.map(keyOf);
    if (select.dataset.keys !== keys.join(",")) {
      select.textContent = "";
      for (const o of state.options) {
        const item = document.createElement("option");
        item.value = keyOf(o);
        item.textContent = o.asset + " on " + (NAMES[o.network] || o.network);
        select.appendChild(item);
      }
      select.dataset.keys = keys.join(",");
    }
    if (!keys.includes(selected)) selected = keys[0] || "";
    select.value = selected;
    const o = state.options.find((x) => keyOf(x) === selected);
    if (!o) return;
    const partial = Number(state.amount_paid) > 0 || Number(state.amount_pending) > 0;
    text("send-label", partial ? "Send the missing" : "Send exactly");
    text("due", o.amount_missing + " " + o.asset);
    text("network", "on " + (NAMES[o.network] || o.network));
    text("address", o.address);
    const src = "/pay/" + token + "/qr/" + o.network + "/" + encodeURIComponent(o.asset) + "?v=" + state.quote_version +
      "&m=" + encodeURIComponent(o.amount_missing);
    const qr = $("qr");
    if (qr.getAttribute("src") !== src) qr.setAttribute("src", src);
    qr.alt = "QR code: pay " + o.amount_missing + " " + o.asset + " on " + (NAMES[o.network] || o.network) + " to " + o.address;
    qr.dataset.uri = o.payment_uri;
    $("wallet-link").href = o.payment_uri;
  }

  function renderPayments() {
    const list = $("payment-list");
    list.textContent = "";
    for (const p of state.payments) {
      const item = document.createElement("li");
      const how = p.status === "CONFIRMED" ? "confirmed" : p.status === "REVERSED" ? "reversed by the chain" :
        p.confirmations + " of " + p.required_confirmations + " confirmations";
      const flag = p.flag === "late" ? " (arrived after the request ended)" : p.flag === "not_accepted" ?
        " (not an accepted asset)" : p.flag === "held" ? " (held for review)" : "";
      item.textContent = p.amount + " " + p.asset + " on " + (NAMES[p.network] || p.network) + ": " + how + flag;
      list.appendChild(item);
    }
    show("payments", state.payments.length > 0);
  }

  function tick() {
    const left = Math.max(0, Math.floor((Date.parse(state.rate_locked_until) - (Date.now() + skew)) / 1000));
    const mm = String(Math.floor(left / 60)).padStart(2, "0");
    const ss = String(left % 60).padStart(2, "0");
    const ending = Date.parse(state.rate_locked_until) >= Date.parse(state.expires_at);
    text("countdown", left > 0 ? (ending ? "Pay within " : "Rate locked for ") + mm + ":" + ss :
      ending ? "Time is up." : "Updating the rate…");
    $("countdown").setAttribute("datetime", "PT" + left + "S");
  }

  function render() {
    document.body.dataset.status = state.status;
    text("status", statusText());
    const payable = state.options.length > 0 && !FINAL.includes(state.status);
    show("pay", payable);
    if (payable) renderOptions();
    renderPayments();
    const paid = state.status === "paid" || state.status === "overpaid";
    show("done", paid && !!state.success_url);
    if (paid && state.success_url) {
      $("success").href = state.success_url;
      if (!redirecting) {
        redirecting = true;
        setTimeout(() => location.assign(state.success_url), 5000);
      }
    }
    show("cancel-row", !!state.cancel_url);
    if (state.cancel_url) $("cancel").href = state.cancel_url;
    tick();
  }

  function copy(value, what) {
    const done = () => text("copied", what + " copied.");
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(value).then(done, () => text("copied", "Copy failed: select the text instead."));
      return;
    }
    const area = document.createElement("textarea");
    area.value = value;
    area.setAttribute("readonly", "");
    area.style.position = "absolute";
    area.style.left = "-9999px";
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    ok ? done() : text("copied", "Copy failed: select the text instead.");
  }

  async function poll() {
    try {
      const answer = await fetch("/pay/" + token + "/status", { cache: "no-store" });
      if (answer.ok) {
        state = (await answer.json()).data;
        skew = Date.parse(state.now) - Date.now();
        render();
      }
    } catch (error) {
      // Offline for a moment: the next poll tries again.
    }
    if (!FINAL.includes(state.status) || state.payments.some((p) => p.status === "PENDING")) setTimeout(poll, 500);
  }

  $("option").addEventListener("change", (event) => { selected = event.target.value; render(); });
  $("copy").addEventListener("click", () => copy($("address").textContent, "Address"));
  $("copy-amount").addEventListener("click", () => copy($("due").textContent.split(" ")[0], "Amount"));
  render();
  setInterval(tick, 1000);
  setTimeout(poll, 500);
})();`;
