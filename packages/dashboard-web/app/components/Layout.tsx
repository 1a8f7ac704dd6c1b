import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { ApiError, api, type User } from "../api.ts";
// --- Merchant pages ---
import { MerchantNavLinks } from "../merchant-pages.tsx";
// --- end merchant pages ---
import { canReadFinance } from "../operator-api.ts";
import { href, linkHandler } from "../router.ts";
import { errorText } from "./format.ts";
import { Notice } from "./Notice.tsx";
import { OperatorNav } from "./OperatorNav.tsx";
import { useFocusHeading } from "./useFocusHeading.ts";

const ROLE_NAMES: Record<User["role"], string> = {
  admin: "Operator admin",
  owner: "Owner",
  developer: "Developer",
  finance: "Finance",
  viewer: "Viewer",
};

/** The signed-in frame: header with the user, their role and the sign-out actions, then the page. */
function NavLink(props: { to: string; current: string; children: ComponentChildren }) {
  return (
    <a
      href={href(props.to)}
      onClick={linkHandler(props.to)}
      aria-current={props.current === props.to ? "page" : undefined}
    >
      {props.children}
    </a>
  );
}

export function Layout(props: {
  user: User;
  /** The merchant whose pages are open (an admin may open any). */
  merchantId: string | undefined;
  path: string;
  onSignedOut: () => void;
  children: ComponentChildren;
}) {
  const [error, setError] = useState<string | undefined>();
  useFocusHeading(props.path);
  const signOut = async (everywhere: boolean) => {
    setError(undefined);
    try {
      if (everywhere) await api.signOutEverywhere();
      else await api.signOut();
      props.onSignedOut();
    } catch (e) {
      // An expired session is signed out already.
      if (e instanceof ApiError && e.status === 401) props.onSignedOut();
      else setError(errorText(e));
    }
  };
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href={href("/")} onClick={linkHandler("/")}>
          Payments
        </a>
        <div class="account">
          <span class="who">
            <span class="email">{props.user.email}</span>
            <span class="role">{ROLE_NAMES[props.user.role]}</span>
          </span>
          <button type="button" class="button secondary" onClick={() => signOut(false)}>
            Sign out
          </button>
          <button type="button" class="button link" onClick={() => signOut(true)}>
            Sign out everywhere
          </button>
        </div>
      </header>
      <nav class="nav" aria-label="Dashboard">
        {props.merchantId && (
          <>
            <NavLink to={`/merchants/${props.merchantId}/overview`} current={props.path}>
              Overview
            </NavLink>
            <NavLink to={`/merchants/${props.merchantId}/api-keys`} current={props.path}>
              API keys
            </NavLink>
            {/* --- Merchant pages --- */}
            <MerchantNavLinks merchantId={props.merchantId} path={props.path} link={NavLink} />
            {/* --- end merchant pages --- */}
          </>
        )}
        {/* --- Operator and finance pages --- */}
        {props.merchantId && canReadFinance(props.user.role) && (
          <NavLink to={`/merchants/${props.merchantId}/finance`} current={props.path}>
            Finance
          </NavLink>
        )}
        {props.user.role === "admin" && <OperatorNav path={props.path} link={NavLink} />}
        {/* --- end operator and finance pages --- */}
      </nav>
      <main id="main" tabIndex={-1}>
        {error && <Notice kind="error">{error}</Notice>}
        {props.children}
      </main>
    </div>
  );
}
