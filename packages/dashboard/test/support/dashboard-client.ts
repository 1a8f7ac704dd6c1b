/** A browser's view of the dashboard's JSON routes, for the API tests. */

export const PASSWORD = "correct horse battery staple";

export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: answers of several shapes, read field by field
  body: any;
  headers: Headers;
}

/** A browser's view: one cookie jar and the session's CSRF token. */
export class Client {
  cookie: string | undefined;
  csrf: string | undefined;
  constructor(private readonly url: string) {}

  async call(method: string, path: string, options: { json?: unknown; csrf?: string | null; origin?: string } = {}) {
    const headers: Record<string, string> = {};
    if (this.cookie) headers.cookie = this.cookie;
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    if (csrf) headers["x-csrf-token"] = csrf;
    if (options.origin) headers.origin = options.origin;
    if (options.json !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${this.url}/dashboard/api${path}`, {
      method,
      headers,
      ...(options.json !== undefined ? { body: JSON.stringify(options.json) } : {}),
    });
    const setCookie = res.headers.get("set-cookie");
    if (setCookie) {
      const value = /^mp_dashboard_session=([^;]*)/.exec(setCookie)?.[1];
      this.cookie = value ? `mp_dashboard_session=${value}` : undefined;
    }
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers } as Answer;
  }

  async signIn(email: string, password = PASSWORD): Promise<Answer> {
    const answer = await this.call("POST", "/session", { json: { email, password } });
    if (answer.status === 201) this.csrf = answer.body.csrf_token;
    return answer;
  }
}
