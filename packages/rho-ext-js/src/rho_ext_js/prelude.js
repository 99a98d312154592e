// The JavaScript environment of an extension: the `rho` global, timers, console, fetch and
// the bridge rho drives (`__rho_bridge`). Web APIs without a host side live in webapi.js.
// Runs once per isolate, before the extension, with `__rho_wake` (a one-way call into rho)
// already set.
(function (g) {
  "use strict";
  const wake = g.__rho_wake;
  delete g.__rho_wake;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const state = { cwd: "", model: "", manifest: null };

  // --- outbox: messages to rho, fetched by rho with drain() after a wake -----------------
  const outbox = [];
  let wakePending = false;
  function post(message) {
    outbox.push(stringify(message));
    if (!wakePending) {
      wakePending = true;
      wake();
    }
  }
  function drain() {
    wakePending = false;
    const text = "[" + outbox.join(",") + "]";
    outbox.length = 0;
    return text;
  }

  // --- host calls: a request in the outbox, its answer through settle() -------------------
  const pending = new Map();
  let nextRequest = 1;
  function hostCall(op, args) {
    return new Promise((resolve, reject) => {
      const id = nextRequest++;
      pending.set(id, { resolve, reject });
      post({ t: "host", id, op, args });
    });
  }
  function settle(id, answerJson) {
    const waiter = pending.get(id);
    if (waiter === undefined) return;
    pending.delete(id);
    const answer = parse(answerJson);
    if (answer.ok) waiter.resolve(answer.value);
    else waiter.reject(new Error(String(answer.error)));
  }

  function errorInfo(error) {
    try {
      if (error instanceof Error) {
        return { message: String(error.message), stack: String(error.stack || "") };
      }
      return { message: String(error), stack: "" };
    } catch (_) {
      return { message: "a value that cannot be shown was thrown", stack: "" };
    }
  }

  function needString(value, what) {
    if (typeof value !== "string") throw new TypeError(`${what} must be a string`);
    return value;
  }

  // --- the rho global ------------------------------------------------------------------
  const LEVELS = ["trace", "debug", "info", "warn", "error"];
  function log(level, message) {
    const lvl = LEVELS.includes(level) ? level : "info";
    let text;
    try {
      text = String(message);
    } catch (_) {
      text = "[unprintable]";
    }
    post({ t: "log", level: lvl, message: text });
  }
  const rho = Object.freeze({
    log(level, message) {
      log(level, message);
    },
    async readFile(path) {
      return hostCall("readFile", [needString(path, "path")]);
    },
    async writeFile(path, content) {
      await hostCall("writeFile", [needString(path, "path"), needString(content, "content")]);
    },
    async runCommand(command, args) {
      const list = args === undefined || args === null ? [] : Array.from(args, String);
      return hostCall("runCommand", [needString(command, "command"), list]);
    },
    getCwd() {
      return state.cwd;
    },
    getProjectRoot() {
      return state.cwd;
    },
    getModel() {
      return state.model;
    },
  });
  Object.defineProperty(g, "rho", { value: rho, enumerable: false });

  // --- console: to rho's log -----------------------------------------------------------
  function show(value) {
    if (typeof value === "string") return value;
    if (value instanceof Error) return String(value.stack || value);
    try {
      const text = stringify(value);
      return text === undefined ? String(value) : text;
    } catch (_) {
      return String(value);
    }
  }
  const consoleLevels = { log: "info", info: "info", warn: "warn", error: "error", debug: "debug", trace: "trace" };
  const console_ = {};
  for (const [method, level] of Object.entries(consoleLevels)) {
    console_[method] = (...args) => log(level, args.map(show).join(" "));
  }
  g.console = Object.freeze(console_);

  // --- timers: one queue in due order, woken by Atomics.waitAsync ------------------------
  const timers = new Map();
  let nextTimer = 1;
  let sequence = 0;
  function runDue() {
    const now = Date.now();
    const due = [...timers.values()].filter((t) => t.due <= now);
    due.sort((a, b) => a.due - b.due || a.seq - b.seq);
    for (const timer of due) {
      if (timers.get(timer.id) !== timer) continue;
      if (timer.interval === null) timers.delete(timer.id);
      else arm(timer, timer.interval);
      try {
        timer.fn(...timer.args);
      } catch (error) {
        log("error", "uncaught in timer: " + errorInfo(error).message);
      }
    }
  }
  function arm(timer, delay) {
    timer.due = Date.now() + delay;
    timer.seq = sequence++;
    const cell = new Int32Array(new SharedArrayBuffer(4));
    Atomics.waitAsync(cell, 0, 0, Math.max(delay, 1)).value.then(runDue);
  }
  function addTimer(fn, delay, args, repeat) {
    if (typeof fn !== "function") throw new TypeError("the callback must be a function");
    const ms = Math.max(0, Number(delay) || 0);
    const timer = { id: nextTimer++, fn, args, interval: repeat ? Math.max(ms, 1) : null };
    timers.set(timer.id, timer);
    arm(timer, ms);
    return timer.id;
  }
  g.setTimeout = (fn, delay, ...args) => addTimer(fn, delay, args, false);
  g.setInterval = (fn, delay, ...args) => addTimer(fn, delay, args, true);
  g.clearTimeout = (id) => void timers.delete(id);
  g.clearInterval = (id) => void timers.delete(id);
  g.queueMicrotask = (fn) => void Promise.resolve().then(fn);

  // --- the bridge rho drives ------------------------------------------------------------
  function encodeResult(value) {
    if (value === undefined) return null;
    const text = stringify(value);
    return text === undefined ? null : parse(text);
  }
  function finish(call, outcome) {
    outcome.then(
      (value) => {
        let encoded;
        try {
          encoded = encodeResult(value);
        } catch (error) {
          post({ t: "done", call, ok: false, error: errorInfo(error) });
          return;
        }
        post({ t: "done", call, ok: true, value: encoded });
      },
      (error) => post({ t: "done", call, ok: false, error: errorInfo(error) }),
    );
  }
  function run(kind, name, arg) {
    if (kind === "load") return load(arg);
    const m = state.manifest;
    if (m === null) throw new Error("no extension is loaded");
    if (kind === "tool") {
      const tool = m.tools.find((t) => t.name === name);
      if (!tool) throw new Error(`no tool named ${name}`);
      return tool.execute(arg);
    }
    if (kind === "command") {
      const command = m.commands.find((c) => c.name === name);
      if (!command) throw new Error(`no command named ${name}`);
      return Promise.resolve(command.handler(arg)).then((out) =>
        typeof out === "string" ? out : out === undefined || out === null ? "" : show(out),
      );
    }
    const hook = m.hooks[name];
    return typeof hook === "function" ? hook.call(m.hooks, arg) : undefined;
  }
  function invoke(call, kind, name, arg) {
    try {
      finish(call, Promise.resolve(run(kind, name, arg)));
    } catch (error) {
      finish(call, Promise.reject(error));
    }
  }
  async function load(source) {
    let manifest = (0, eval)(source);
    if (manifest && typeof manifest.then === "function") manifest = await manifest;
    if (manifest && typeof manifest === "object" && "default" in manifest) manifest = manifest.default;
    const described = g.__rho_describe(manifest);
    state.manifest = described.manifest;
    return described.descriptor;
  }
  function init(settings) {
    const s = parse(settings);
    if (typeof s.cwd === "string") state.cwd = s.cwd;
    if (typeof s.model === "string") state.model = s.model;
    if (typeof s.seed === "string") g.__rho_seed(s.seed);
  }
  Object.defineProperty(g, "__rho_bridge", {
    value: Object.freeze({ invoke, settle, drain, init, hostCall, errorInfo }),
    enumerable: false,
  });
})(globalThis);
