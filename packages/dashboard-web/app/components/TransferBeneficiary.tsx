import { useState } from "preact/hooks";
import type { Transfer } from "../merchant-api.ts";
import { type TransferBeneficiary as Beneficiary, operatorApi } from "../operator-api.ts";
import { errorText } from "./format.ts";
import { Notice } from "./Notice.tsx";

/**
 * A crypto transfer's travel rule data, for the platform's operator (admin) only: decrypted on
 * demand by the server, which records each reading in the audit log.
 */
export function TransferBeneficiary(props: { transfer: Transfer }) {
  const [shown, setShown] = useState<Beneficiary | undefined>();
  const [error, setError] = useState<string | undefined>();
  if (!props.transfer.destination.beneficiary_on_file) return <span class="muted">none</span>;
  const show = async () => {
    try {
      setShown(await operatorApi.transferBeneficiary(props.transfer.id));
    } catch (e) {
      setError(errorText(e));
    }
  };
  const b = shown?.beneficiary;
  if (error) return <Notice kind="error">{error}</Notice>;
  if (!shown)
    return (
      <button type="button" class="button link" onClick={show}>
        Show beneficiary (audited)
      </button>
    );
  if (!b) return <span class="muted">none</span>;
  return (
    <span>
      {b.type === "BUSINESS" ? `${b.name}, legal name ${b.legal_name} (${b.country})` : b.name}{" "}
      <span class="muted">({b.type.toLowerCase()})</span>
    </span>
  );
}
