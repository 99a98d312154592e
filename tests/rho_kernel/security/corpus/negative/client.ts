// API client with token refresh.
import { createHash } from "crypto";

export interface Credentials {
  username: string;
  password: string;
  token?: string;
  apiKey: string | null;
}

type Secret = { secret: string; secretKeyName: string };

const TOKEN_STORAGE_KEY = "auth.token";
const taskRunnerConfigurationIdentifier = "task-runner-configuration-identifier-v2";
const cssClass = "disk-usage-indicator-progress-bar-2";

export class ApiClient {
  private token: string | null = null;
  private refreshToken: string | null = null;

  constructor(private readonly baseUrl: string, private password: string) {}

  async login(creds: Credentials): Promise<void> {
    const token = localStorage.getItem(TOKEN_STORAGE_KEY);
    const password = creds.password;
    const body = { username: creds.username, password: hashPassword(password) };
    const response = await fetch(`${this.baseUrl}/login`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    const json = await response.json();
    this.token = json.token;
    this.refreshToken = json.refresh_token;
  }

  headers(): Record<string, string> {
    return { Authorization: "Bearer " + this.token };
  }
}

function hashPassword(password: string): string {
  return createHash("sha256").update(password).digest("hex");
}

export const uuid = "3fa85f64-5717-4562-b3fc-2c963f66afa6";
export const blob =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
