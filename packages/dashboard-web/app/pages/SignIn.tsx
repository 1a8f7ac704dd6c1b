import { useState } from "preact/hooks";
import { ApiError, api, type User } from "../api.ts";
import { Notice } from "../components/Notice.tsx";
import { PasswordField } from "../components/PasswordField.tsx";

export function SignIn(props: { onSignedIn: (user: User, csrfToken: string) => void; notice?: string }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const answer = await api.signIn(email, password);
      props.onSignedIn(answer.user, answer.csrf_token);
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
      setPassword("");
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="auth" id="main">
      <form class="card auth-card" onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to the dashboard</h1>
        {props.notice && <Notice kind="success">{props.notice}</Notice>}
        {error && <Notice kind="error">{error}</Notice>}
        <div class="field">
          <label for="email">Email</label>
          <input
            id="email"
            name="email"
            type="email"
            required
            autocomplete="username"
            value={email}
            onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
          />
        </div>
        <PasswordField
          id="password"
          label="Password"
          value={password}
          onInput={setPassword}
          autocomplete="current-password"
        />
        <button type="submit" class="button primary wide" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
        <p class="hint">No password yet? Use the one-time link your operator sent you.</p>
      </form>
    </main>
  );
}
