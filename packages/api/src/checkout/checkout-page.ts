import type { CheckoutView } from "@mp/payment-requests";
import { CHECKOUT_SCRIPT } from "./checkout-script.ts";

const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

/** JSON inside a <script type="application/json">: `<` escaped, so no text can close the element. */
const embedJson = (value: unknown): string => JSON.stringify(value).replace(/</g, "\\u003c");

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111;background:#f4f5f7}
main{max-width:28rem;margin:0 auto;padding:1rem;background:#fff;min-height:100vh}
header{border-bottom:1px solid #ddd;padding-bottom:.75rem}
.merchant{margin:0;color:#444;font-weight:600}
h1{margin:.25rem 0;font-size:1.75rem}
h2{font-size:1.1rem;margin:1rem 0 .5rem}
.desc{margin:0;color:#333}
.status{margin:1rem 0;padding:.75rem;border-radius:.5rem;background:#eef2ff;font-weight:600}
body[data-status=paid] .status,body[data-status=overpaid] .status{background:#dcfce7}
body[data-status=underpaid] .status{background:#fef9c3}
body[data-status=expired] .status,body[data-status=canceled] .status{background:#fee2e2}
label{display:block;font-weight:600;margin-bottom:.25rem}
select{width:100%;font:inherit;padding:.5rem;border:1px solid #666;border-radius:.375rem;background:#fff;color:#111}
.send{margin:.75rem 0}
.qr{display:block;width:15rem;height:15rem;max-width:100%;margin:.5rem auto;image-rendering:pixelated}
.address{margin:.25rem 0;word-break:break-all}
code{font:.95rem/1.4 ui-monospace,Menlo,Consolas,monospace;background:#f3f4f6;padding:.125rem .25rem;border-radius:.25rem}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin:.5rem 0}
button,.button{font:inherit;font-weight:600;padding:.6rem .9rem;border-radius:.375rem;border:0;background:#1d4ed8;color:#fff;cursor:pointer;text-decoration:none;display:inline-block;min-height:44px}
button:focus-visible,.button:focus-visible,select:focus-visible,a:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.secondary{background:#e5e7eb;color:#111}
.countdown{color:#333}
.muted{color:#555;font-size:.9rem}
a{color:#1d4ed8}
ul{padding-left:1.25rem}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;

/** The nonce-guarded page: no resource from elsewhere, nothing inline without the nonce. */
export function checkoutHeaders(nonce: string): Record<string, string> {
  return {
    "Content-Security-Policy": `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    // The token in the address must not travel to the success URL or a wallet's site.
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
  };
}

/**
 * The hosted page of a payment request, server-rendered: the amount, the merchant and description,
 * the first option's address and QR code (an SVG drawn by this service), and the state the script
 * takes over from (checkout-script.ts). Works in a 390 px wide viewport; the status is a live region.
 */
export function checkoutPage(token: string, view: CheckoutView, nonce: string): string {
  const first = view.options[0];
  const merchant = escapeHtml(view.merchant_name);
  const qrSrc = first
    ? `/pay/${token}/qr/${first.network}/${encodeURIComponent(first.asset)}?v=${view.quote_version}`
    : "";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Pay ${merchant}: ${escapeHtml(view.amount)} ${escapeHtml(view.currency)}</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body data-status="${escapeHtml(view.status)}">
<main id="checkout" data-token="${escapeHtml(token)}">
<header>
<p class="merchant">Pay ${merchant}</p>
<h1 id="amount">${escapeHtml(view.amount)} ${escapeHtml(view.currency)}</h1>
${view.description ? `<p class="desc">${escapeHtml(view.description)}</p>` : ""}
</header>
<p id="status" class="status" role="status" aria-live="polite"></p>
<section id="pay" aria-labelledby="pay-title"${first ? "" : " hidden"}>
<h2 id="pay-title">How to pay</h2>
<label for="option">Pay with</label>
<select id="option"></select>
<p class="send"><span id="send-label">Send exactly</span> <strong id="due">${first ? escapeHtml(`${first.amount_missing} ${first.asset}`) : ""}</strong> <span id="network"></span></p>
<img id="qr" class="qr" width="240" height="240" ${qrSrc ? `src="${qrSrc}" ` : ""}alt="QR code of the payment">
<p class="muted" id="address-label">To this address, only from the network named above:</p>
<p class="address"><code id="address">${first ? escapeHtml(first.address) : ""}</code></p>
<div class="actions">
<button type="button" id="copy">Copy address</button>
<button type="button" id="copy-amount" class="secondary">Copy amount</button>
<a id="wallet-link" class="button secondary" href="${first ? escapeHtml(first.payment_uri) : "#"}">Open in wallet</a>
</div>
<p class="sr" id="copied" role="status" aria-live="polite"></p>
<p><time id="countdown" class="countdown"></time></p>
</section>
<section id="payments" aria-labelledby="payments-title" hidden>
<h2 id="payments-title">Payments</h2>
<ul id="payment-list"></ul>
</section>
<p id="done" hidden><a id="success" class="button" href="#">Return to ${merchant}</a> <span class="muted">(you will be taken there in a few seconds)</span></p>
<p id="cancel-row" hidden><a id="cancel" href="#">Cancel and return to ${merchant}</a></p>
<p class="muted">Expires ${escapeHtml(new Date(view.expires_at).toUTCString())}.</p>
</main>
<script type="application/json" id="state">${embedJson(view)}</script>
<script nonce="${nonce}">${CHECKOUT_SCRIPT}</script>
</body>
</html>`;
}

/** The page answered for an unknown link: a 404 a payer can read. */
export function unknownCheckoutPage(nonce: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Payment link not found</title><style nonce="${nonce}">${STYLE}</style></head>
<body><main><h1>Payment link not found</h1><p>This payment link is not valid. Ask the merchant for a new one.</p></main></body></html>`;
}
