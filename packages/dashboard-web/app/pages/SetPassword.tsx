import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { Notice } from "../components/Notice.tsx";
import { PasswordField } from "../components/PasswordField.tsx";
import { useAction } from "../components/useAction.ts";

const MIN_LENGTH = 12;

/** The one-time link's token rides in the URL fragment (#token=...), which browsers never send to a server. */
function tokenFromLocation(): string | undefined {
  return new URLSearchParams(window.location.hash.slice(1)).get("token") ?? undefined;
}

export function SetPassword(props: { onDone: () => void }) {
  const [token] = useState(tokenFromLocation);
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  // A password this page refuses before asking the server, which has the last word (`error`).
  const [invalid, setInvalid] = useState<string | undefined>();
  const { busy, error, run } = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    const problem =
      password.length < MIN_LENGTH
        ? `The password needs at least ${MIN_LENGTH} characters.`
        : password !== confirm
          ? "The two passwords differ."
          : undefined;
    setInvalid(problem);
    if (problem || !token) return;
    const done = await run(() => api.setPassword(token, password).then(() => true));
    if (!done) return;
    // The token is spent: drop it from the address bar and history.
    window.history.replaceState(null, "", window.location.pathname);
    props.onDone();
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
        {(invalid ?? error) && <Notice kind="error">{invalid ?? error}</Notice>}
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
