import { api } from "../api.ts";
import { EnvironmentBadge } from "../components/EnvironmentBadge.tsx";
import { Empty, Skeleton } from "../components/Loading.tsx";
import { Notice } from "../components/Notice.tsx";
import { useLoad } from "../components/useLoad.ts";
import { href, linkHandler } from "../router.ts";

/** The operator's list of merchants, each opening its API keys. */
export function Merchants() {
  const [merchants] = useLoad(() => api.merchants(), "merchants");
  return (
    <section aria-labelledby="merchants-title">
      <h1 id="merchants-title">Merchants</h1>
      {merchants.state === "loading" && <Skeleton what="merchants" />}
      {merchants.state === "error" && <Notice kind="error">{merchants.error.message}</Notice>}
      {merchants.state === "ready" && merchants.value.items.length === 0 && (
        <Empty title="No merchants yet.">
          Create one with <code>payments merchants create --name NAME</code>.
        </Empty>
      )}
      {merchants.state === "ready" && merchants.value.items.length > 0 && (
        <ul class="list">
          {merchants.value.items.map((merchant) => (
            <li key={merchant.id} class="list-row">
              <a
                href={href(`/merchants/${merchant.id}/overview`)}
                onClick={linkHandler(`/merchants/${merchant.id}/overview`)}
              >
                {merchant.name}
              </a>
              <EnvironmentBadge environment={merchant.environment} />
              <code class="muted id">{merchant.id}</code>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
