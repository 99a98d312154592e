// Web APIs a bare V8 lacks: TextEncoder/TextDecoder, atob/btoa, URLSearchParams, URL,
// Headers, fetch, crypto (getRandomValues, randomUUID, subtle.digest), structuredClone.
// Small implementations for the common cases (what is not covered: docs/extension-runtime.md).
(function (g) {
  "use strict";
  const bridge = g.__rho_bridge;
  const define = (name, value) =>
    Object.defineProperty(g, name, { value, writable: true, configurable: true, enumerable: false });

  // --- UTF-8 ---------------------------------------------------------------------------
  function utf8Encode(input) {
    const s = String(input);
    const out = [];
    for (let i = 0; i < s.length; i++) {
      let c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
        }
      }
      if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
      if (c < 0x80) out.push(c);
      else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return new Uint8Array(out);
  }
  function bytesOf(input) {
    if (input instanceof ArrayBuffer) return new Uint8Array(input);
    if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    if (input === undefined) return new Uint8Array(0);
    throw new TypeError("expected an ArrayBuffer or a typed array");
  }
  function utf8Decode(bytes, fatal) {
    let out = "";
    let i = 0;
    const bad = () => {
      if (fatal) throw new TypeError("the data is not valid UTF-8");
      out += "\ufffd";
    };
    while (i < bytes.length) {
      const b = bytes[i];
      let need = 0;
      let cp = 0;
      let min = 0;
      if (b < 0x80) {
        out += String.fromCharCode(b);
        i++;
        continue;
      } else if (b >= 0xc2 && b <= 0xdf) [need, cp, min] = [1, b & 31, 0x80];
      else if (b >= 0xe0 && b <= 0xef) [need, cp, min] = [2, b & 15, 0x800];
      else if (b >= 0xf0 && b <= 0xf4) [need, cp, min] = [3, b & 7, 0x10000];
      else {
        bad();
        i++;
        continue;
      }
      let j = 1;
      for (; j <= need; j++) {
        const c = bytes[i + j];
        if (c === undefined || (c & 0xc0) !== 0x80) break;
        cp = (cp << 6) | (c & 63);
      }
      if (j <= need || cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
        bad();
        i += Math.max(1, j);
        continue;
      }
      out += String.fromCodePoint(cp);
      i += need + 1;
    }
    return out;
  }
  class TextEncoder {
    get encoding() {
      return "utf-8";
    }
    encode(input = "") {
      return utf8Encode(input);
    }
  }
  class TextDecoder {
    constructor(label = "utf-8", options = {}) {
      const l = String(label).trim().toLowerCase();
      if (l !== "utf-8" && l !== "utf8" && l !== "unicode-1-1-utf-8") {
        throw new RangeError(`unsupported encoding: ${label} (only utf-8)`);
      }
      this.fatal = Boolean(options && options.fatal);
      this.ignoreBOM = Boolean(options && options.ignoreBOM);
    }
    get encoding() {
      return "utf-8";
    }
    decode(input) {
      let bytes = bytesOf(input);
      if (!this.ignoreBOM && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
      return utf8Decode(bytes, this.fatal);
    }
  }
  define("TextEncoder", TextEncoder);
  define("TextDecoder", TextDecoder);

  // --- base64 --------------------------------------------------------------------------
  const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  define("btoa", (input) => {
    const s = String(input);
    let out = "";
    for (let i = 0; i < s.length; i += 3) {
      const codes = [s.charCodeAt(i), s.charCodeAt(i + 1), s.charCodeAt(i + 2)];
      if (codes.some((c) => c > 255)) throw new Error("btoa: the string has characters outside Latin-1");
      const [a, b, c] = codes;
      const n = (a << 16) | ((b || 0) << 8) | (c || 0);
      out += B64[n >> 18] + B64[(n >> 12) & 63];
      out += i + 1 < s.length ? B64[(n >> 6) & 63] : "=";
      out += i + 2 < s.length ? B64[n & 63] : "=";
    }
    return out;
  });
  define("atob", (input) => {
    const s = String(input).replace(/[\t\n\f\r ]/g, "").replace(/==?$/, "");
    if (/[^A-Za-z0-9+/]/.test(s) || s.length % 4 === 1) throw new Error("atob: invalid base64");
    let out = "";
    let bits = 0;
    let value = 0;
    for (const ch of s) {
      value = (value << 6) | B64.indexOf(ch);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out += String.fromCharCode((value >> bits) & 255);
      }
    }
    return out;
  });

  // --- URLSearchParams -----------------------------------------------------------------
  function formEncode(s) {
    return encodeURIComponent(String(s))
      .replace(/[!'()~]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase())
      .replace(/%20/g, "+");
  }
  function percentDecode(s) {
    const bytes = utf8Encode(s);
    const out = [];
    for (let i = 0; i < bytes.length; i++) {
      const hex = String.fromCharCode(bytes[i + 1] || 0, bytes[i + 2] || 0);
      if (bytes[i] === 0x25 && /^[0-9a-fA-F]{2}$/.test(hex)) {
        out.push(parseInt(hex, 16));
        i += 2;
      } else out.push(bytes[i]);
    }
    return utf8Decode(out, false);
  }
  function parseForm(query) {
    const list = [];
    for (const part of query.split("&")) {
      if (part === "") continue;
      const eq = part.indexOf("=");
      const name = eq < 0 ? part : part.slice(0, eq);
      const value = eq < 0 ? "" : part.slice(eq + 1);
      list.push([percentDecode(name.replace(/\+/g, " ")), percentDecode(value.replace(/\+/g, " "))]);
    }
    return list;
  }
  class URLSearchParams {
    #list = [];
    #owner = null;
    constructor(init = "") {
      if (typeof init === "string") this.#list = parseForm(init.startsWith("?") ? init.slice(1) : init);
      else if (init instanceof URLSearchParams) this.#list = init.#list.map(([k, v]) => [k, v]);
      else if (init && typeof init[Symbol.iterator] === "function") {
        for (const pair of init) {
          const p = Array.from(pair);
          if (p.length !== 2) throw new TypeError("each pair must have exactly two items");
          this.#list.push([String(p[0]), String(p[1])]);
        }
      } else if (init && typeof init === "object") {
        for (const key of Object.keys(init)) this.#list.push([key, String(init[key])]);
      }
    }
    static _attach(params, owner, query) {
      params.#owner = owner;
      params.#list = parseForm(query);
    }
    #update() {
      if (this.#owner) this.#owner._setQueryFromParams(this.toString());
    }
    get size() {
      return this.#list.length;
    }
    append(name, value) {
      this.#list.push([String(name), String(value)]);
      this.#update();
    }
    delete(name, value) {
      const n = String(name);
      this.#list = this.#list.filter(([k, v]) => k !== n || (value !== undefined && v !== String(value)));
      this.#update();
    }
    get(name) {
      const hit = this.#list.find(([k]) => k === String(name));
      return hit ? hit[1] : null;
    }
    getAll(name) {
      return this.#list.filter(([k]) => k === String(name)).map(([, v]) => v);
    }
    has(name, value) {
      return this.#list.some(([k, v]) => k === String(name) && (value === undefined || v === String(value)));
    }
    set(name, value) {
      const n = String(name);
      const i = this.#list.findIndex(([k]) => k === n);
      if (i < 0) this.#list.push([n, String(value)]);
      else {
        this.#list[i] = [n, String(value)];
        this.#list = this.#list.filter(([k], j) => k !== n || j === i);
      }
      this.#update();
    }
    sort() {
      this.#list = this.#list
        .map((pair, i) => [pair, i])
        .sort((a, b) => (a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : a[1] - b[1]))
        .map(([pair]) => pair);
      this.#update();
    }
    forEach(fn, thisArg) {
      for (const [k, v] of this.#list) fn.call(thisArg, v, k, this);
    }
    *entries() {
      for (const [k, v] of this.#list) yield [k, v];
    }
    *keys() {
      for (const [k] of this.#list) yield k;
    }
    *values() {
      for (const [, v] of this.#list) yield v;
    }
    [Symbol.iterator]() {
      return this.entries();
    }
    toString() {
      return this.#list.map(([k, v]) => formEncode(k) + "=" + formEncode(v)).join("&");
    }
  }
  define("URLSearchParams", URLSearchParams);

  // --- URL (WHATWG-style for http, https, file; other schemes kept opaque) -----------------
  const DEFAULT_PORTS = { "http:": "80", "https:": "443", "ws:": "80", "wss:": "443", "ftp:": "21", "file:": "" };
  const isSpecial = (protocol) => Object.prototype.hasOwnProperty.call(DEFAULT_PORTS, protocol);
  function percentEncode(s, unsafe) {
    let out = "";
    for (const ch of s) {
      const code = ch.codePointAt(0);
      if (code <= 0x20 || code >= 0x7f || unsafe.includes(ch)) {
        for (const b of utf8Encode(ch)) out += "%" + b.toString(16).toUpperCase().padStart(2, "0");
      } else out += ch;
    }
    return out;
  }
  const PATH_UNSAFE = "\"#<>?`{}";
  const QUERY_UNSAFE = "\"#<>";
  const FRAGMENT_UNSAFE = "\"<>`";
  const USERINFO_UNSAFE = "\"#<>?`{}/:;=@[\\]^|";
  function normalizePath(path, special) {
    const segments = (special ? path.replace(/\\/g, "/") : path).split("/");
    const out = [];
    segments.forEach((segment, index) => {
      const s = segment.toLowerCase();
      const last = index === segments.length - 1;
      if (s === ".." || s === ".%2e" || s === "%2e." || s === "%2e%2e") {
        if (out.length > 1) out.pop();
        if (last) out.push("");
      } else if (s === "." || s === "%2e") {
        if (last) out.push("");
      } else out.push(percentEncode(segment, PATH_UNSAFE));
    });
    const joined = out.join("/");
    return joined.startsWith("/") ? joined : "/" + joined;
  }
  function parseHost(host, special) {
    if (host.startsWith("[")) {
      if (!/^\[[0-9a-fA-F:.]+\]$/.test(host)) throw new TypeError("Invalid URL: bad IPv6 host");
      return host.toLowerCase();
    }
    const decoded = special ? percentDecode(host).toLowerCase() : host;
    if (special && /[\x00-\x20#%/:<>?@[\\\]^|]/.test(decoded)) throw new TypeError("Invalid URL: bad host");
    if (special && /[^\x00-\x7f]/.test(decoded)) throw new TypeError("Invalid URL: internationalized hosts are not supported");
    return special ? decoded : percentEncode(host, "");
  }
  function splitAfterPath(rest) {
    const hashAt = rest.indexOf("#");
    const fragment = hashAt < 0 ? null : rest.slice(hashAt + 1);
    const beforeHash = hashAt < 0 ? rest : rest.slice(0, hashAt);
    const queryAt = beforeHash.indexOf("?");
    const query = queryAt < 0 ? null : beforeHash.slice(queryAt + 1);
    const path = queryAt < 0 ? beforeHash : beforeHash.slice(0, queryAt);
    return { path, query, fragment };
  }
  function parseAuthority(r, authority, special) {
    const at = authority.lastIndexOf("@");
    if (at >= 0) {
      const info = authority.slice(0, at);
      const colon = info.indexOf(":");
      r.username = percentEncode(colon < 0 ? info : info.slice(0, colon), USERINFO_UNSAFE);
      r.password = colon < 0 ? "" : percentEncode(info.slice(colon + 1), USERINFO_UNSAFE);
      authority = authority.slice(at + 1);
    }
    const portMatch = /^(.*?)(?::(\d*))?$/.exec(authority.startsWith("[") ? authority.replace(/^(\[[^\]]*\])/, "$1") : authority);
    let host = portMatch[1];
    let port = portMatch[2] || "";
    if (authority.startsWith("[")) {
      const end = authority.indexOf("]");
      host = authority.slice(0, end + 1);
      const tail = authority.slice(end + 1);
      if (tail !== "" && !/^:\d*$/.test(tail)) throw new TypeError("Invalid URL: bad port");
      port = tail.slice(1);
    }
    if (port !== "") {
      const n = Number(port);
      if (n > 65535) throw new TypeError("Invalid URL: port out of range");
      port = String(n);
      if (port === DEFAULT_PORTS[r.protocol]) port = "";
    }
    r.port = port;
    r.hostname = parseHost(host, special);
    if (special && r.protocol !== "file:" && r.hostname === "") throw new TypeError("Invalid URL: empty host");
  }
  function parseAbsolute(input) {
    const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/s.exec(input);
    if (!m) return null;
    const r = { protocol: m[1].toLowerCase() + ":", username: "", password: "", hostname: "", port: "" };
    const special = isSpecial(r.protocol);
    let rest = m[2];
    const file = r.protocol === "file:";
    const slashes = file ? /^[/\\]{0,2}/.exec(rest)[0] : special ? /^[/\\]*/.exec(rest)[0] : /^\/\//.test(rest) ? "//" : "";
    r.hasAuthority = special || slashes === "//";
    if (r.hasAuthority) {
      rest = rest.slice(slashes.length);
      const end = rest.search(special ? /[/\\?#]/ : /[/?#]/);
      const authority = end < 0 ? rest : rest.slice(0, end);
      rest = end < 0 ? "" : rest.slice(end);
      parseAuthority(r, authority, special);
    }
    const parts = splitAfterPath(rest);
    r.pathname = r.hasAuthority || parts.path.startsWith("/") ? normalizePath(parts.path, special) : percentEncode(parts.path, "");
    r.search = parts.query === null || parts.query === "" ? "" : "?" + percentEncode(parts.query, special ? QUERY_UNSAFE + "'" : QUERY_UNSAFE);
    r.hash = parts.fragment === null || parts.fragment === "" ? "" : "#" + percentEncode(parts.fragment, FRAGMENT_UNSAFE);
    return r;
  }
  function resolve(input, base) {
    const special = isSpecial(base.protocol);
    const slashy = special ? /^[/\\]{2}/ : /^\/\//;
    if (slashy.test(input)) return parseAbsolute(base.protocol + input);
    const origin = `${base.protocol}//${base.authority}`;
    if (input === "") return parseAbsolute(origin + base.pathname + base.search);
    if (input.startsWith("#")) return parseAbsolute(origin + base.pathname + base.search + input);
    if (input.startsWith("?")) return parseAbsolute(origin + base.pathname + input);
    if (/^[/\\]/.test(input) && (special || input.startsWith("/"))) return parseAbsolute(origin + input);
    const dir = base.pathname.slice(0, base.pathname.lastIndexOf("/") + 1);
    return parseAbsolute(origin + dir + input);
  }
  class URL {
    #r;
    #params;
    constructor(url, base) {
      const clean = (s) => String(s).replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, "").replace(/[\t\n\r]/g, "");
      const input = clean(url);
      let r = /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(input) ? parseAbsolute(input) : null;
      if (r === null) {
        if (base === undefined) throw new TypeError(`Invalid URL: ${input}`);
        const b = new URL(base);
        if (!b.#r.hasAuthority) throw new TypeError(`Invalid URL: ${input} against an opaque base`);
        r = resolve(input, { ...b.#r, authority: b.#authority() });
      }
      this.#r = r;
      this.#params = new URLSearchParams();
      URLSearchParams._attach(this.#params, this, r.search.slice(1));
    }
    static canParse(url, base) {
      try {
        new URL(url, base);
        return true;
      } catch (_) {
        return false;
      }
    }
    _setQueryFromParams(query) {
      this.#r.search = query === "" ? "" : "?" + query;
    }
    #authority() {
      const r = this.#r;
      const info = r.username || r.password ? r.username + (r.password ? ":" + r.password : "") + "@" : "";
      return info + this.host;
    }
    get protocol() {
      return this.#r.protocol;
    }
    get username() {
      return this.#r.username;
    }
    get password() {
      return this.#r.password;
    }
    get hostname() {
      return this.#r.hostname;
    }
    get port() {
      return this.#r.port;
    }
    get host() {
      return this.#r.hostname + (this.#r.port ? ":" + this.#r.port : "");
    }
    get origin() {
      const p = this.#r.protocol;
      return isSpecial(p) && p !== "file:" ? `${p}//${this.host}` : "null";
    }
    get pathname() {
      return this.#r.pathname;
    }
    set pathname(value) {
      if (this.#r.hasAuthority) this.#r.pathname = normalizePath(String(value), isSpecial(this.#r.protocol));
    }
    get search() {
      return this.#r.search;
    }
    set search(value) {
      const q = String(value).replace(/^\?/, "");
      this.#r.search = q === "" ? "" : "?" + percentEncode(q, QUERY_UNSAFE + "'");
      URLSearchParams._attach(this.#params, this, q);
    }
    get searchParams() {
      return this.#params;
    }
    get hash() {
      return this.#r.hash;
    }
    set hash(value) {
      const f = String(value).replace(/^#/, "");
      this.#r.hash = f === "" ? "" : "#" + percentEncode(f, FRAGMENT_UNSAFE);
    }
    get href() {
      const r = this.#r;
      const head = r.hasAuthority ? `${r.protocol}//${this.#authority()}` : r.protocol;
      return head + r.pathname + r.search + r.hash;
    }
    toString() {
      return this.href;
    }
    toJSON() {
      return this.href;
    }
  }
  define("URL", URL);

  // --- Headers, Response, fetch ----------------------------------------------------------
  class Headers {
    #map = new Map();
    constructor(init) {
      if (init instanceof Headers) init.forEach((v, k) => this.append(k, v));
      else if (init && typeof init[Symbol.iterator] === "function") for (const [k, v] of init) this.append(k, v);
      else if (init && typeof init === "object") for (const k of Object.keys(init)) this.append(k, init[k]);
    }
    append(name, value) {
      const k = String(name).toLowerCase();
      const v = String(value);
      this.#map.set(k, this.#map.has(k) ? this.#map.get(k) + ", " + v : v);
    }
    set(name, value) {
      this.#map.set(String(name).toLowerCase(), String(value));
    }
    get(name) {
      const v = this.#map.get(String(name).toLowerCase());
      return v === undefined ? null : v;
    }
    has(name) {
      return this.#map.has(String(name).toLowerCase());
    }
    delete(name) {
      this.#map.delete(String(name).toLowerCase());
    }
    forEach(fn, thisArg) {
      for (const [k, v] of this.entries()) fn.call(thisArg, v, k, this);
    }
    *entries() {
      yield* [...this.#map.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
    }
    *keys() {
      for (const [k] of this.entries()) yield k;
    }
    *values() {
      for (const [, v] of this.entries()) yield v;
    }
    [Symbol.iterator]() {
      return this.entries();
    }
  }
  class Response {
    #body;
    constructor(body, init = {}) {
      this.#body = body === undefined || body === null ? "" : String(body);
      this.status = init.status === undefined ? 200 : Number(init.status);
      this.statusText = init.statusText === undefined ? "" : String(init.statusText);
      this.headers = new Headers(init.headers);
      this.url = init.url || "";
      this.ok = this.status >= 200 && this.status <= 299;
      this.redirected = false;
      this.bodyUsed = false;
    }
    #take() {
      if (this.bodyUsed) return Promise.reject(new TypeError("the body has already been read"));
      this.bodyUsed = true;
      return Promise.resolve(this.#body);
    }
    text() {
      return this.#take();
    }
    json() {
      return this.#take().then((t) => JSON.parse(t));
    }
    arrayBuffer() {
      return this.#take().then((t) => utf8Encode(t).buffer);
    }
  }
  function bodyText(body, headers) {
    if (body === undefined || body === null) return null;
    if (typeof body === "string") return body;
    if (body instanceof URLSearchParams) {
      if (!headers.has("content-type")) headers.set("content-type", "application/x-www-form-urlencoded;charset=UTF-8");
      return body.toString();
    }
    if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return utf8Decode(bytesOf(body), false);
    return String(body);
  }
  async function fetch(resource, init = {}) {
    const url = String(resource && typeof resource === "object" && "url" in resource ? resource.url : resource);
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw new TypeError(`fetch: only http and https URLs are supported, not ${parsed.protocol}`);
    }
    const headers = new Headers(init.headers);
    const method = String(init.method || "GET").toUpperCase();
    const body = bodyText(init.body, headers);
    const request = { url: parsed.href, method, headers: Object.fromEntries(headers.entries()) };
    if (body !== null) request.body = body;
    const answer = await bridge.hostCall("fetch", [request]);
    return new Response(answer.body, {
      status: answer.status,
      statusText: answer.statusText,
      headers: answer.headers,
      url: parsed.href,
    });
  }
  define("Headers", Headers);
  define("Response", Response);
  define("fetch", fetch);

  // --- crypto: ChaCha20 keystream keyed from the host's os.urandom ----------------------
  const rng = { key: null, nonce: null, counter: 0, block: new Uint8Array(64), used: 64 };
  function chachaBlock() {
    const s = new Uint32Array(16);
    s.set([0x61707865, 0x3320646e, 0x79622d32, 0x6b206574]);
    s.set(rng.key, 4);
    s[12] = rng.counter++;
    s.set(rng.nonce, 13);
    const x = new Uint32Array(s);
    const qr = (a, b, c, d) => {
      x[a] += x[b]; x[d] ^= x[a]; x[d] = (x[d] << 16) | (x[d] >>> 16);
      x[c] += x[d]; x[b] ^= x[c]; x[b] = (x[b] << 12) | (x[b] >>> 20);
      x[a] += x[b]; x[d] ^= x[a]; x[d] = (x[d] << 8) | (x[d] >>> 24);
      x[c] += x[d]; x[b] ^= x[c]; x[b] = (x[b] << 7) | (x[b] >>> 25);
    };
    for (let i = 0; i < 10; i++) {
      qr(0, 4, 8, 12); qr(1, 5, 9, 13); qr(2, 6, 10, 14); qr(3, 7, 11, 15);
      qr(0, 5, 10, 15); qr(1, 6, 11, 12); qr(2, 7, 8, 13); qr(3, 4, 9, 14);
    }
    for (let i = 0; i < 16; i++) x[i] += s[i];
    rng.block = new Uint8Array(x.buffer);
    rng.used = 0;
  }
  function seed(hex) {
    const words = new Uint32Array(11);
    for (let i = 0; i < 11; i++) words[i] = parseInt(hex.slice(i * 8, i * 8 + 8), 16);
    rng.key = words.subarray(0, 8);
    rng.nonce = words.subarray(8, 11);
    rng.counter = 0;
    rng.used = 64;
  }
  function getRandomValues(array) {
    if (!ArrayBuffer.isView(array) || array instanceof Float32Array || array instanceof Float64Array || array instanceof DataView) {
      throw new TypeError("getRandomValues needs an integer typed array");
    }
    if (array.byteLength > 65536) throw new RangeError("getRandomValues: more than 65536 bytes requested");
    if (rng.key === null) throw new Error("the random generator is not seeded");
    const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
    for (let i = 0; i < bytes.length; i++) {
      if (rng.used === 64) {
        if (rng.counter >= 0xffffffff) throw new Error("the random generator is exhausted");
        chachaBlock();
      }
      bytes[i] = rng.block[rng.used++];
    }
    return array;
  }
  function randomUUID() {
    const b = getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  const DIGESTS = ["SHA-1", "SHA-256", "SHA-384", "SHA-512"];
  async function digest(algorithm, data) {
    const name = String(typeof algorithm === "object" && algorithm !== null ? algorithm.name : algorithm).toUpperCase();
    if (!DIGESTS.includes(name)) throw new Error(`digest: unsupported algorithm ${name}`);
    const hex = [...bytesOf(data)].map((x) => x.toString(16).padStart(2, "0")).join("");
    const out = await bridge.hostCall("digest", [name, hex]);
    const bytes = new Uint8Array(out.length / 2);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(out.slice(i * 2, i * 2 + 2), 16);
    return bytes.buffer;
  }
  define("crypto", Object.freeze({ getRandomValues, randomUUID, subtle: Object.freeze({ digest }) }));
  Object.defineProperty(g, "__rho_seed", { value: seed, enumerable: false });

  // --- structuredClone ------------------------------------------------------------------
  function clone(value, seen) {
    if (typeof value === "function" || typeof value === "symbol") {
      const error = new Error(`${String(value)} could not be cloned`);
      error.name = "DataCloneError";
      throw error;
    }
    if (value === null || typeof value !== "object") return value;
    if (seen.has(value)) return seen.get(value);
    let out;
    if (Array.isArray(value)) out = [];
    else if (value instanceof Date) return new Date(value.getTime());
    else if (value instanceof RegExp) return new RegExp(value.source, value.flags);
    else if (value instanceof ArrayBuffer) return value.slice(0);
    else if (ArrayBuffer.isView(value)) return new value.constructor(value);
    else if (value instanceof Map) out = new Map();
    else if (value instanceof Set) out = new Set();
    else if (value instanceof Error) out = new Error(value.message);
    else out = {};
    seen.set(value, out);
    if (value instanceof Map) for (const [k, v] of value) out.set(clone(k, seen), clone(v, seen));
    else if (value instanceof Set) for (const v of value) out.add(clone(v, seen));
    else for (const k of Object.keys(value)) out[k] = clone(value[k], seen);
    return out;
  }
  define("structuredClone", (value) => clone(value, new Map()));
})(globalThis);
