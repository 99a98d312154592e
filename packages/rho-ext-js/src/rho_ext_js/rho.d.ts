// Type definitions for rho extensions (TypeScript or JavaScript run in V8 by rho-ext-js).
//
// Reference it from an extension for editor help:
//   /// <reference path="./rho.d.ts" />
// (`python -m rho_ext_js.typings` prints where this file is installed; copy it next to your
// extensions, e.g. to ~/.rho/extensions/rho.d.ts.)

/** How dangerous a tool or command is; the approval policy decides from it. */
type RhoRisk = "read" | "write" | "destructive" | "network";

/** A tool parameter in the compact form: `{ query: { type: "string", required: true } }`. */
interface RhoParameter {
  type: "string" | "number" | "integer" | "boolean" | "array" | "object";
  description?: string;
  /** Only a literal `true` makes the parameter required. */
  required?: boolean;
}

interface RhoTool {
  /** 1–64 letters, digits, `_` or `-`; unique among every tool rho has. */
  name: string;
  description: string;
  /**
   * What a call may do: `read` runs without asking; the others ask for approval. Inside
   * `execute`, `rho.writeFile` needs `write` or higher and `rho.runCommand` `destructive`.
   */
  risk: RhoRisk;
  /** The compact form, or a JSON Schema object (`{ type: "object", properties: … }`). */
  parameters?: Record<string, RhoParameter> | { type: "object"; [key: string]: unknown };
  /** Receives the arguments as a JSON string; returns text, or an object (sent as JSON). */
  execute(args: string): Promise<string | object> | string | object;
}

/** What `onToolCall` receives (as a JSON string) before a tool call runs. */
interface RhoToolCallEvent {
  toolName: string;
  /** The call's arguments as a JSON string. */
  arguments: string;
}

/** What `onToolResult` receives (as a JSON string) after a tool call ran. */
interface RhoToolResultEvent {
  toolName: string;
  output: string;
  isError: boolean;
}

/**
 * `onToolCall` may answer `{ action: "block", reason }` (the call does not run; the model
 * gets an error with the reason) or `{ action: "modify", arguments }` (the call runs with
 * these arguments: an object, or a JSON string of one). Anything else lets it run.
 */
type RhoInterception =
  | { action: "block"; reason: string }
  | { action: "modify"; arguments: object | string }
  | void
  | undefined
  | null;

interface RhoHooks {
  /** After the extension is loaded (and after each reload). */
  onLoad?(args: string): Promise<void> | void;
  /** Before every tool call of the model (any tool, not only this extension's). */
  onToolCall?(args: string): Promise<RhoInterception> | RhoInterception;
  /** After every tool call of the model. */
  onToolResult?(args: string): Promise<void> | void;
  /** Accepted for compatibility; never called. */
  onBeforeModel?(args: string): Promise<void> | void;
}

interface RhoCommand {
  name: string;
  description?: string;
  /** What the handler may do when a client runs it (default `read`). */
  risk?: RhoRisk;
  handler(args: string): Promise<string> | string;
}

/** The default export of an extension. */
interface RhoExtension {
  name: string;
  version?: string;
  tools?: RhoTool[];
  hooks?: RhoHooks;
  commands?: RhoCommand[];
}

/** The result of `rho.runCommand`. */
interface RhoCommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/**
 * The host functions. `readFile`, `writeFile` and `runCommand` return Promises (rho calls
 * into Python asynchronously): write `await rho.readFile(path)`, which also works where
 * they are synchronous. `log` returns nothing and needs no `await`.
 */
declare const rho: {
  log(level: "trace" | "debug" | "info" | "warn" | "error", message: string): void;
  /** A UTF-8 file inside the project (or a path granted by `allow_paths`), at most 1 MiB. */
  readFile(path: string): Promise<string>;
  /** Creates or replaces a file inside the project (not in `.git` or `.rho`). */
  writeFile(path: string, content: string): Promise<void>;
  /** Runs a program (no shell) in the project's sandbox; needs `commands = true`. */
  runCommand(command: string, args?: string[]): Promise<RhoCommandResult>;
  /** The project root. */
  getCwd(): string;
  /** The project root (the same as `getCwd`). */
  getProjectRoot(): string;
  /** The model in use (follows model switches). */
  getModel(): string;
};

/** `fetch` needs `network = true` in the extension's config; http and https only. */
declare function fetch(
  url: string | URL,
  init?: { method?: string; headers?: Record<string, string> | [string, string][]; body?: string | URLSearchParams | ArrayBuffer | ArrayBufferView },
): Promise<{
  ok: boolean;
  status: number;
  statusText: string;
  url: string;
  headers: {
    get(name: string): string | null;
    has(name: string): boolean;
    entries(): IterableIterator<[string, string]>;
    keys(): IterableIterator<string>;
    values(): IterableIterator<string>;
    forEach(callback: (value: string, name: string) => void): void;
  };
  text(): Promise<string>;
  json(): Promise<any>;
  arrayBuffer(): Promise<ArrayBuffer>;
}>;
