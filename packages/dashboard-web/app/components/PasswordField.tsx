export function PasswordField(props: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  autocomplete: "current-password" | "new-password";
  hint?: string;
}) {
  const hintId = props.hint ? `${props.id}-hint` : undefined;
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name={props.id}
        type="password"
        required
        autocomplete={props.autocomplete}
        value={props.value}
        aria-describedby={hintId}
        onInput={(e) => props.onInput((e.target as HTMLInputElement).value)}
      />
      {props.hint && (
        <p class="hint" id={hintId}>
          {props.hint}
        </p>
      )}
    </div>
  );
}
