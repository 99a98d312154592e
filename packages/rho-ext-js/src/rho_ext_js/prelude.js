// The JavaScript environment of an extension: the `rho` global, timers, console, fetch and
// the bridge rho drives (`__rho_bridge`). Web APIs without a host side live in webapi.js.
// Runs once per isolate, before the extension, with `__rho_wake` (a one-way call into rho)
// already set.
//
// Authority. rho decides what a host request may do from the call it belongs to, and the
// extension is hostile: it may replace any global or prototype method. So:
// - Work runs in turns (a task and the microtasks it queues). Each turn belongs to one
//   call, named by a token rho minted for it: the call's own invocation, the answer to a
//   host request (the token the request was made with), or a timer (the token it was
//   scheduled with). `ambient` holds the token of the current turn; every message to rho
//   carries it and rho grants a request the authority of that token's call while the call
//   runs, read-only otherwise.
// - Only rho sets `ambient`: the entry points that take a token check the bridge key, a
//   secret rho passes in each call and that no extension-visible value holds.
// - Everything below that handles a token, the key or the outbox uses built-ins captured
//   here, before any extension code runs, and objects without a prototype: no function the
//   extension can replace ever sees them.
// - The engine's own task sources that the prelude does not wrap (Atomics.waitAsync,
//   FinalizationRegistry, asynchronous WebAssembly compilation, mini-racer's own timers) are
//   removed or made synchronous, so that every turn starts at an entry point above.
(function (g) {
  "use strict";
  const wake = g.__rho_wake;
  delete g.__rho_wake;
  const apply = Reflect.apply;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const dateNow = Date.now;
  const indirectEval = g.eval;
  const PromiseCtor = Promise;
  const promiseThen = Promise.prototype.then;
  const promiseResolve = Promise.resolve;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const StringFn = String;
  const waitAsync = Atomics.waitAsync;
  const notify = Atomics.notify;
  const SharedBuffer = SharedArrayBuffer;
  const Int32 = Int32Array;
  const freeze = Object.freeze;
  const defineProperty = Object.defineProperty;
  const state = { cwd: "", model: "", manifest: null };
  // `then` on the runtime's own promises looks these two up: fixed, it calls no extension code.
  Object.defineProperty(Promise.prototype, "constructor", { writable: false, configurable: false });
  const species = Object.getOwnPropertyDescriptor(Promise, Symbol.species);
  Object.defineProperty(Promise, Symbol.species, { get: species.get, configurable: false });

  // --- authority: the bridge key and the token of the current turn ------------------------
  let bridgeKey = null;
  let ambient = "";
  function guard(key) {
    if (bridgeKey === null || typeof key !== "string" || key !== bridgeKey) {
      throw new TypeErrorCtor("__rho_bridge is rho's own: an extension cannot drive it");
    }
  }
  function tokenOf(value) {
    return typeof value === "string" ? value : "";
  }

  // --- outbox: messages to rho, fetched by rho with drain() after a wake -----------------
  let outbox = "";
  let wakePending = false;
  function postText(text) {
    outbox += (outbox === "" ? "" : ",") + '{"c":' + stringify(ambient) + ',"m":' + text + "}";
    if (!wakePending) {
      wakePending = true;
      wake();
    }
  }
  function post(message) {
    const text = stringify(message);
    if (typeof text !== "string") throw new TypeErrorCtor("the message to rho could not be encoded");
    postText(text);
  }
  function drain(key) {
    guard(key);
    ambient = "";
    wakePending = false;
    const text = "[" + outbox + "]";
    outbox = "";
    return text;
  }

  // --- host calls: a request in the outbox, its answer through settle() -------------------
  const pending = Object.create(null);
  let nextRequest = 1;
  function callerFrames() {
    // The stack of the extension's call, read now in its own turn: a refusal then points at
    // the extension's line, where an error made in settle() would show only rho's frames.
    try {
      const stack = StringFn(new ErrorCtor().stack);
      const at = stack.indexOf("\n");
      return at < 0 ? "" : stack.slice(at);
    } catch (_) {
      return "";
    }
  }
  function hostFailure(message, frames) {
    const error = new ErrorCtor(message);
    defineProperty(error, "stack", {
      value: "Error: " + message + frames,
      writable: true,
      configurable: true,
      enumerable: false,
    });
    return error;
  }
  function hostCall(op, args) {
    const id = nextRequest++;
    const frames = callerFrames();
    // Posted now, in the caller's turn: the request carries the caller's token.
    post({ t: "host", id, op, args });
    return new PromiseCtor((resolve, reject) => {
      pending[id] = { __proto__: null, resolve, reject, frames };
    });
  }
  function settle(key, id, answerJson, token) {
    guard(key);
    ambient = tokenOf(token); // the continuation runs for the call that asked
    const waiter = pending[id];
    if (waiter === undefined) return;
    delete pending[id];
    const answer = parse(answerJson);
    if (answer.ok) waiter.resolve(answer.value);
    else waiter.reject(hostFailure(StringFn(answer.error), waiter.frames));
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
  const LEVELS = { __proto__: null, trace: true, debug: true, info: true, warn: true, error: true };
  function log(level, message) {
    const lvl = typeof level === "string" && LEVELS[level] === true ? level : "info";
    let text;
    try {
      text = String(message);
    } catch (_) {
      text = "[unprintable]";
    }
    post({ t: "log", level: lvl, message: text });
  }
  const rho = freeze({
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
  // A frame of the extension's own modules: their sourceURLs are "<extension>/<file>", while
  // rho's environment and bridge are "<anonymous>" and the bundle's glue is "<extension>".
  const ownFrame = /^\s*at (?:.+? \()?[^()\s]*\/[^()\s]*:\d+:\d+\)?$/;
  function ownStack(stack) {
    return stack
      .split("\n")
      .filter((line, i) => i === 0 || !/^\s*at /.test(line) || ownFrame.test(line))
      .join("\n");
  }
  function show(value) {
    if (typeof value === "string") return value;
    if (value instanceof Error) return ownStack(String(value.stack || value));
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
  g.console = freeze(console_);

  // --- timers: one timer per turn, in due order, each with the token it was scheduled in --
  const timers = Object.create(null);
  let nextTimer = 1;
  let sequence = 0;
  let armedFor = Infinity; // the time the latest wake-up was armed for
  function wakeBy(due) {
    if (due >= armedFor) return;
    armedFor = due;
    const cell = new Int32(new SharedBuffer(4));
    const delay = due - dateNow();
    const waiting = apply(waitAsync, undefined, [cell, 0, 0, delay >= 1 ? delay : Infinity]);
    apply(promiseThen, waiting.value, [runNext]);
    if (!(delay >= 1)) apply(notify, undefined, [cell, 0, 1]); // due now: wake in the next task
  }
  function earliest() {
    let first = null;
    for (const id in timers) {
      const timer = timers[id];
      if (first === null || timer.due < first.due || (timer.due === first.due && timer.seq < first.seq)) {
        first = timer;
      }
    }
    return first;
  }
  function arm(timer, delay) {
    timer.due = dateNow() + delay;
    timer.seq = sequence++;
    wakeBy(timer.due);
  }
  // A reaction of a wake-up's own promise, which nothing else can reach: it starts its turn.
  function runNext() {
    ambient = "";
    armedFor = Infinity;
    const timer = earliest();
    if (timer === null) return;
    if (timer.due > dateNow()) {
      wakeBy(timer.due);
      return;
    }
    if (timer.interval === 0) delete timers[timer.id];
    else arm(timer, timer.interval);
    const next = earliest();
    if (next !== null) wakeBy(next.due);
    ambient = timer.token;
    try {
      apply(timer.fn, undefined, timer.args);
    } catch (error) {
      log("error", "uncaught in timer: " + errorInfo(error).message);
    }
  }
  function addTimer(fn, delay, args, repeat) {
    if (typeof fn !== "function") throw new TypeError("the callback must be a function");
    let ms = +delay;
    if (!(ms > 0)) ms = 0;
    const timer = {
      __proto__: null,
      id: nextTimer++,
      fn,
      args,
      interval: repeat ? (ms > 1 ? ms : 1) : 0,
      due: 0,
      seq: 0,
      token: ambient,
    };
    timers[timer.id] = timer;
    arm(timer, ms);
    return timer.id;
  }
  function clearTimer(id) {
    if (typeof id === "number") delete timers[id];
  }
  g.setTimeout = (fn, delay, ...args) => addTimer(fn, delay, args, false);
  g.setInterval = (fn, delay, ...args) => addTimer(fn, delay, args, true);
  g.clearTimeout = clearTimer;
  g.clearInterval = clearTimer;
  g.queueMicrotask = (fn) => {
    if (typeof fn !== "function") throw new TypeError("the callback must be a function");
    apply(promiseThen, apply(promiseResolve, PromiseCtor, []), [() => fn()]);
  };

  // --- task sources the engine has and the prelude does not wrap: gone, or synchronous ---
  delete Atomics.waitAsync;
  delete g.FinalizationRegistry;
  if (g.__timer_manager !== undefined) g.__timer_manager = undefined; // mini-racer's own timers
  if (typeof __TimerManager !== "undefined") __TimerManager = undefined; // eslint-disable-line no-undef
  const wasm = g.WebAssembly;
  if (wasm !== undefined) {
    const Module = wasm.Module;
    const Instance = wasm.Instance;
    const now = (make) => new PromiseCtor((resolve) => resolve(make()));
    const method = (name, value) =>
      Object.defineProperty(wasm, name, { value, writable: true, configurable: true, enumerable: false });
    method("compile", function compile(bytes) {
      return now(() => new Module(bytes));
    });
    method("instantiate", function instantiate(source, imports) {
      return now(() => {
        if (source instanceof Module) return new Instance(source, imports);
        const module = new Module(source);
        return { module, instance: new Instance(module, imports) };
      });
    });
    delete wasm.compileStreaming;
    delete wasm.instantiateStreaming;
  }

  // --- the bridge rho drives ------------------------------------------------------------
  function encodeResult(value) {
    if (value === undefined) return null;
    const text = stringify(value);
    return text === undefined ? null : parse(text);
  }
  function done(call, ok, value) {
    try {
      post({ t: "done", call, ok, [ok ? "value" : "error"]: value });
    } catch (_) {
      const error = '{"message":"the result could not be encoded","stack":""}';
      postText('{"t":"done","call":' + stringify(call) + ',"ok":false,"error":' + error + "}");
    }
  }
  function finish(call, outcome) {
    apply(promiseThen, outcome, [
      (value) => {
        let encoded;
        try {
          encoded = encodeResult(value);
        } catch (error) {
          done(call, false, errorInfo(error));
          return;
        }
        done(call, true, encoded);
      },
      (error) => done(call, false, errorInfo(error)),
    ]);
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
  function invoke(key, call, kind, name, arg, token) {
    guard(key);
    ambient = tokenOf(token);
    try {
      finish(call, apply(promiseResolve, PromiseCtor, [run(kind, name, arg)]));
    } catch (error) {
      done(call, false, errorInfo(error));
    }
  }
  async function load(source) {
    let manifest = indirectEval(source);
    if (manifest && typeof manifest.then === "function") manifest = await manifest;
    if (manifest && typeof manifest === "object" && "default" in manifest) manifest = manifest.default;
    const described = g.__rho_describe(manifest);
    state.manifest = described.manifest;
    return described.descriptor;
  }
  // The first call (rho's, before any extension code runs) sets the bridge key.
  function init(key, settings) {
    if (bridgeKey === null && typeof key === "string" && key !== "") bridgeKey = key;
    guard(key);
    ambient = "";
    const s = parse(settings);
    if (typeof s.cwd === "string") state.cwd = s.cwd;
    if (typeof s.model === "string") state.model = s.model;
    if (typeof s.seed === "string") g.__rho_seed(s.seed);
  }
  Object.defineProperty(g, "__rho_bridge", {
    value: freeze({ invoke, settle, drain, init, hostCall, errorInfo }),
    enumerable: false,
  });
})(globalThis);
