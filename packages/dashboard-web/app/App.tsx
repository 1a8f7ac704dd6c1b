import { useEffect, useState } from "preact/hooks";
import { ApiError, api, onSessionEnded, setCsrfToken, type User } from "./api.ts";
import { Layout } from "./components/Layout.tsx";
import { Skeleton } from "./components/Loading.tsx";
import { lazyPage } from "./components/lazyPage.tsx";
import { Notice } from "./components/Notice.tsx";
// --- Merchant pages ---
import { MERCHANT_PAGE_TITLES, merchantPageOf } from "./merchant-pages.tsx";
// --- end merchant pages ---
// --- Operator and finance pages ---
import { OPERATOR_TITLES, operatorFinancePage } from "./operator-pages.tsx";
// --- end operator and finance pages ---
import { Overview } from "./pages/Overview.tsx";
import { SignIn } from "./pages/SignIn.tsx";
import { currentPath, navigate, usePath } from "./router.ts";

// Pages besides the two homes (a merchant's overview, the operator's merchants) and sign-in are
// chunks fetched when they first open.
const ApiKeys = lazyPage(() => import("./pages/ApiKeys.tsx").then((m) => m.ApiKeys));
// The operator's home grew to hold its merchant management (create, disable): a chunk too.
const Merchants = lazyPage(() => import("./pages/Merchants.tsx").then((m) => m.Merchants));
const SetPassword = lazyPage(() => import("./pages/SetPassword.tsx").then((m) => m.SetPassword));

type SessionState =
  | { state: "checking" }
  | { state: "signed-out" }
  | { state: "signed-in"; user: User }
  | { state: "error"; message: string };

const TITLES: Array<[RegExp, string]> = [
  [/^\/sign-in$/, "Sign in"],
  [/^\/set-password$/, "Set password"],
  [/^\/merchants$/, "Merchants"],
  [/^\/merchants\/[^/]+\/api-keys$/, "API keys"],
  [/^\/merchants\/[^/]+\/overview$/, "Overview"],
  // --- Merchant pages ---
  ...MERCHANT_PAGE_TITLES,
  // --- end merchant pages ---
  // --- Operator and finance pages ---
  ...OPERATOR_TITLES,
  // --- end operator and finance pages ---
];

export function App() {
  const path = usePath();
  const [session, setSession] = useState<SessionState>({ state: "checking" });
  const [notice, setNotice] = useState<string | undefined>();
  const [returnTo, setReturnTo] = useState<string | undefined>();

  useEffect(() => {
    const title = TITLES.find(([pattern]) => pattern.test(path))?.[1];
    document.title = title ? `${title} · Payments dashboard` : "Payments dashboard";
  }, [path]);

  useEffect(() => {
    api.session().then(
      (answer) => {
        setCsrfToken(answer.csrf_token);
        setSession({ state: "signed-in", user: answer.user });
      },
      (error: unknown) => {
        if (error instanceof ApiError && error.status === 401) setSession({ state: "signed-out" });
        else setSession({ state: "error", message: error instanceof Error ? error.message : String(error) });
      },
    );
  }, []);

  const signedOut = (message?: string) => {
    setCsrfToken(undefined);
    setNotice(message);
    setSession({ state: "signed-out" });
    navigate("/sign-in", { replace: true });
  };

  // A 401 from any page (the session expired, ended elsewhere, or the user was disabled): back to
  // sign-in at once, then to the same page after signing in again.
  useEffect(() => {
    onSessionEnded(() => {
      const from = currentPath();
      if (from !== "/sign-in") setReturnTo(from);
      signedOut("Your session has ended. Sign in again to continue.");
    });
    return () => onSessionEnded(undefined);
  }, []);

  if (path === "/set-password") return <SetPassword onDone={() => signedOut("Password set. Sign in with it now.")} />;
  if (session.state === "checking") {
    return (
      <main class="auth" id="main">
        <Skeleton what="your session" />
      </main>
    );
  }
  if (session.state === "error") {
    return (
      <main class="auth" id="main">
        <Notice kind="error">{session.message}</Notice>
      </main>
    );
  }
  if (session.state === "signed-out") {
    return (
      <SignIn
        {...(notice ? { notice } : {})}
        onSignedIn={(user, csrfToken) => {
          setCsrfToken(csrfToken);
          setNotice(undefined);
          setSession({ state: "signed-in", user });
          setReturnTo(undefined);
          navigate(returnTo ?? "/", { replace: true });
        }}
      />
    );
  }

  const { user } = session;
  const merchantPage = /^\/merchants\/([^/]+)\/(api-keys|overview)$/.exec(path);
  // --- Merchant pages ---
  const otherMerchantPage = merchantPageOf(path, user);
  // --- end merchant pages ---
  const merchantId = merchantPage?.[1] ?? otherMerchantPage?.merchantId;
  // --- Operator and finance pages ---
  const operatorPage = operatorFinancePage(path, user);
  // --- end operator and finance pages ---
  let page = null;
  if (otherMerchantPage) page = otherMerchantPage.page;
  else if (merchantId && merchantPage?.[2] === "api-keys") page = <ApiKeys user={user} merchantId={merchantId} />;
  else if (merchantId) page = <Overview merchantId={merchantId} />;
  else if (path === "/merchants" && user.role === "admin") page = <Merchants />;
  else if (operatorPage)
    page = operatorPage.page; // Operator and finance pages
  else if (path === "/operator/merchants") {
    // The old address of the merchants page merged into /merchants.
    queueMicrotask(() => navigate("/merchants", { replace: true }));
  } else if (path === "/" || path === "/sign-in") {
    // Home: a merchant user's overview; the operator's list of merchants.
    const home = user.merchant_id ? `/merchants/${user.merchant_id}/overview` : "/merchants";
    queueMicrotask(() => navigate(home, { replace: true }));
  } else {
    page = (
      <section>
        <h1>Page not found</h1>
        <Notice kind="error">There is no page at this address.</Notice>
      </section>
    );
  }
  return (
    <Layout
      user={user}
      merchantId={merchantId ?? operatorPage?.merchantId}
      path={path}
      onSignedOut={() => signedOut("You are signed out.")}
    >
      {page}
    </Layout>
  );
}
