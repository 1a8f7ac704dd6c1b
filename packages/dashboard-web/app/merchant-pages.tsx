import type { ComponentChildren, JSX } from "preact";
import type { User } from "./api.ts";
import { lazyPage } from "./components/lazyPage.tsx";
// The overview polls with the deposits page's hook, so that page is in the first load anyway.
import { Deposits } from "./pages/Deposits.tsx";

// Each page is its own chunk, fetched when it first opens (components/lazyPage.tsx).
const CustomerDetail = lazyPage(() => import("./pages/Customers.tsx").then((m) => m.CustomerDetail));
const Customers = lazyPage(() => import("./pages/Customers.tsx").then((m) => m.Customers));
const DepositDetail = lazyPage(() => import("./pages/DepositDetail.tsx").then((m) => m.DepositDetail));
const LiquidationAddressDetail = lazyPage(() =>
  import("./pages/LiquidationAddresses.tsx").then((m) => m.LiquidationAddressDetail),
);
const LiquidationAddresses = lazyPage(() =>
  import("./pages/LiquidationAddresses.tsx").then((m) => m.LiquidationAddresses),
);
const PaymentRequestDetail = lazyPage(() => import("./pages/PaymentRequests.tsx").then((m) => m.PaymentRequestDetail));
const PaymentRequests = lazyPage(() => import("./pages/PaymentRequests.tsx").then((m) => m.PaymentRequests));
const Events = lazyPage(() => import("./pages/Events.tsx").then((m) => m.Events));
const Quotes = lazyPage(() => import("./pages/Quotes.tsx").then((m) => m.Quotes));
const Team = lazyPage(() => import("./pages/Team.tsx").then((m) => m.Team));
const TransferDetail = lazyPage(() => import("./pages/TransferDetail.tsx").then((m) => m.TransferDetail));
const Transfers = lazyPage(() => import("./pages/Transfers.tsx").then((m) => m.Transfers));
const VirtualAccountDetail = lazyPage(() => import("./pages/VirtualAccounts.tsx").then((m) => m.VirtualAccountDetail));
const VirtualAccounts = lazyPage(() => import("./pages/VirtualAccounts.tsx").then((m) => m.VirtualAccounts));
const WalletDetail = lazyPage(() => import("./pages/Wallets.tsx").then((m) => m.WalletDetail));
const Wallets = lazyPage(() => import("./pages/Wallets.tsx").then((m) => m.Wallets));
const Webhooks = lazyPage(() => import("./pages/Webhooks.tsx").then((m) => m.Webhooks));

/** The merchant pages besides the overview and the keys: [section in the path, nav label]. */
export const MERCHANT_SECTIONS: Array<[string, string]> = [
  ["customers", "Customers"],
  ["wallets", "Wallets"],
  ["deposits", "Deposits"],
  ["virtual-accounts", "Virtual accounts"],
  ["transfers", "Transfers"],
  ["quotes", "Quotes"],
  ["liquidation-addresses", "Liquidation addresses"],
  ["payment-requests", "Payment requests"],
  ["webhooks", "Webhooks"],
  ["events", "Events"],
  ["team", "Team"],
];

export const MERCHANT_PAGE_TITLES: Array<[RegExp, string]> = [
  [/^\/merchants\/[^/]+\/customers\/[^/]+$/, "Customer"],
  [/^\/merchants\/[^/]+\/wallets\/[^/]+$/, "Wallet"],
  [/^\/merchants\/[^/]+\/deposits\/[^/]+$/, "Deposit"],
  [/^\/merchants\/[^/]+\/transfers\/[^/]+$/, "Transfer"],
  [/^\/merchants\/[^/]+\/payment-requests\/[^/]+$/, "Payment request"],
  [/^\/merchants\/[^/]+\/virtual-accounts\/[^/]+$/, "Virtual account"],
  [/^\/merchants\/[^/]+\/liquidation-addresses\/[^/]+$/, "Liquidation address"],
  ...MERCHANT_SECTIONS.map(([section, label]): [RegExp, string] => [
    new RegExp(`^/merchants/[^/]+/${section}$`),
    label,
  ]),
];

const PAGE =
  /^\/merchants\/([^/]+)\/(customers|wallets|deposits|virtual-accounts|transfers|quotes|liquidation-addresses|payment-requests|webhooks|events|team)(?:\/([^/]+))?$/;

/** The merchant page at `path`, if it is one of these. */
export function merchantPageOf(path: string, user: User): { merchantId: string; page: JSX.Element } | undefined {
  const match = PAGE.exec(path);
  const [, merchantId, section, id] = match ?? [];
  if (!merchantId || !section) return undefined;
  const pages: Record<string, () => JSX.Element | undefined> = {
    customers: () =>
      id ? <CustomerDetail merchantId={merchantId} customerId={id} /> : <Customers merchantId={merchantId} />,
    wallets: () => (id ? <WalletDetail merchantId={merchantId} walletId={id} /> : <Wallets merchantId={merchantId} />),
    deposits: () =>
      id ? <DepositDetail merchantId={merchantId} depositId={id} /> : <Deposits user={user} merchantId={merchantId} />,
    transfers: () =>
      id ? (
        <TransferDetail merchantId={merchantId} transferId={id} />
      ) : (
        <Transfers merchantId={merchantId} user={user} />
      ),
    "virtual-accounts": () =>
      id ? (
        <VirtualAccountDetail merchantId={merchantId} accountId={id} />
      ) : (
        <VirtualAccounts merchantId={merchantId} />
      ),
    "liquidation-addresses": () =>
      id ? (
        <LiquidationAddressDetail merchantId={merchantId} addressId={id} />
      ) : (
        <LiquidationAddresses merchantId={merchantId} />
      ),
    "payment-requests": () =>
      id ? (
        <PaymentRequestDetail merchantId={merchantId} requestId={id} user={user} />
      ) : (
        <PaymentRequests merchantId={merchantId} user={user} />
      ),
    webhooks: () => (id ? undefined : <Webhooks user={user} merchantId={merchantId} />),
    events: () => (id ? undefined : <Events merchantId={merchantId} />),
    quotes: () => (id ? undefined : <Quotes merchantId={merchantId} />),
    team: () => (id ? undefined : <Team user={user} merchantId={merchantId} />),
  };
  const page = pages[section]?.();
  return page ? { merchantId, page } : undefined;
}

/** The nav links of these pages (the section's link stays current on its detail pages). */
export function MerchantNavLinks(props: {
  merchantId: string;
  path: string;
  link: (props: { to: string; current: string; children: ComponentChildren }) => JSX.Element;
}) {
  const Link = props.link;
  return (
    <>
      {MERCHANT_SECTIONS.map(([section, label]) => {
        const to = `/merchants/${props.merchantId}/${section}`;
        const current = props.path.startsWith(`${to}/`) ? to : props.path;
        return (
          <Link key={section} to={to} current={current}>
            {label}
          </Link>
        );
      })}
    </>
  );
}
