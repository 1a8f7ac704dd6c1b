import { useState } from "preact/hooks";
import { ApiError, api } from "../api.ts";
import { Notice } from "../components/Notice.tsx";
import { PasswordField } from "../components/PasswordField.tsx";

const MIN_LENGTH = 12;

/** The one-time link's token rides in the URL fragment (#token=...), which browsers never send to a server. */
function tokenFromLocation(): string | undefined {
  return new URLSearchParams(window.location.hash.slice(1)).get("token") ?? undefined;
}

export function SetPassword(props: { onDone: () => void }) {
  const [token] = useState(tokenFromLocation);
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    if (password.length < MIN_LENGTH) return setError(`The password needs at least ${MIN_LENGTH} characters.`);
    if (password !== confirm) return setError("The two passwords differ.");
    if (!token) return;
    setBusy(true);
    try {
      await api.setPassword(token, password);
      // The token is spent: drop it from the address bar and history.
      window.history.replaceState(null, "", window.location.pathname);
      props.onDone();
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="auth" id="main">
      <form class="card auth-card" onSubmit={submit} aria-labelledby="set-password-title">
        <h1 id="set-password-title">Choose your password</h1>
        {!token && (
          <Notice kind="error">
            This page needs the one-time link you were given. Ask your operator for a new one (
            <code>payments users reset-password</code>).
          </Notice>
        )}
        {error && <Notice kind="error">{error}</Notice>}
        <PasswordField
          id="new-password"
          label="New password"
          value={password}
          onInput={setPassword}
          autocomplete="new-password"
          hint={`At least ${MIN_LENGTH} characters. A passphrase of several words works well.`}
        />
        <PasswordField
          id="confirm-password"
          label="Repeat the password"
          value={confirm}
          onInput={setConfirm}
          autocomplete="new-password"
        />
        <button type="submit" class="button primary wide" disabled={busy || !token}>
          {busy ? "Saving…" : "Set password"}
        </button>
      </form>
    </main>
  );
}
