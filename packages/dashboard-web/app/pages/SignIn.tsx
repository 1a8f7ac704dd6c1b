import { useState } from "preact/hooks";
import { api, type User } from "../api.ts";
import { Notice } from "../components/Notice.tsx";
import { PasswordField } from "../components/PasswordField.tsx";
import { useAction } from "../components/useAction.ts";

export function SignIn(props: { onSignedIn: (user: User, csrfToken: string) => void; notice?: string }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const { busy, error, run } = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    const answer = await run(() => api.signIn(email, password));
    if (answer) props.onSignedIn(answer.user, answer.csrf_token);
    else setPassword("");
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
