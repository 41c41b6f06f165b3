// URL (parsed by the host after the WHATWG URL standard), URLSearchParams
// and the node:url module (URL, URLSearchParams, fileURLToPath,
// pathToFileURL).

const kFormSafe = /[^*\-._A-Za-z0-9]/;

function formEncode(s) {
  s = `${s}`.toWellFormed();
  if (!kFormSafe.test(s)) return s;
  return encodeURIComponent(s)
    .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

function percentDecode(s) {
  if (!s.includes('%')) return s;
  const bytes = new Uint8Array(host.encode(s, 'utf8'));
  const out = new Uint8Array(bytes.length);
  let n = 0;
  const hex = (c) => (c >= 48 && c <= 57 ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : -1);
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === 37 && i + 2 < bytes.length && hex(bytes[i + 1]) >= 0 && hex(bytes[i + 2]) >= 0) {
      out[n++] = hex(bytes[i + 1]) * 16 + hex(bytes[i + 2]);
      i += 2;
    } else {
      out[n++] = b;
    }
  }
  return host.decode(out.subarray(0, n), 'utf8');
}

function formDecode(s) { return percentDecode(s.replace(/\+/g, ' ')); }

function parseForm(query) {
  const list = [];
  for (const part of query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = eq === -1 ? part : part.slice(0, eq);
    const value = eq === -1 ? '' : part.slice(eq + 1);
    list.push([formDecode(name), formDecode(value)]);
  }
  return list;
}

class URLSearchParams {
  #list = [];
  #url = null;
  constructor(init = undefined) {
    if (init === undefined || init === null) return;
    if (typeof init === 'object' || typeof init === 'function') {
      if (typeof init[Symbol.iterator] === 'function') {
        for (const pair of init) {
          const p = [...pair];
          if (p.length !== 2) throw nodeError(TypeError, 'ERR_INVALID_TUPLE', 'Each query pair must be an iterable [name, value] tuple');
          this.#list.push([`${p[0]}`.toWellFormed(), `${p[1]}`.toWellFormed()]);
        }
      } else {
        for (const k of Object.keys(init)) this.#list.push([k.toWellFormed(), `${init[k]}`.toWellFormed()]);
      }
      return;
    }
    let s = `${init}`;
    if (s.startsWith('?')) s = s.slice(1);
    this.#list = parseForm(s);
  }
  static _attach(params, url, query) {
    params.#url = url;
    params.#list = parseForm(query);
  }
  static _reset(params, query) { params.#list = parseForm(query); }
  #update() {
    if (this.#url) this.#url._setSearchFromParams(this.toString());
  }
  get size() { return this.#list.length; }
  append(name, value) { this.#list.push([`${name}`.toWellFormed(), `${value}`.toWellFormed()]); this.#update(); }
  delete(name, value) {
    name = `${name}`;
    this.#list = this.#list.filter(([k, v]) => k !== name || (value !== undefined && v !== `${value}`));
    this.#update();
  }
  get(name) {
    name = `${name}`;
    const e = this.#list.find(([k]) => k === name);
    return e ? e[1] : null;
  }
  getAll(name) { name = `${name}`; return this.#list.filter(([k]) => k === name).map(([, v]) => v); }
  has(name, value) {
    name = `${name}`;
    return this.#list.some(([k, v]) => k === name && (value === undefined || v === `${value}`));
  }
  set(name, value) {
    name = `${name}`.toWellFormed();
    value = `${value}`.toWellFormed();
    const i = this.#list.findIndex(([k]) => k === name);
    if (i === -1) this.#list.push([name, value]);
    else {
      this.#list[i][1] = value;
      this.#list = this.#list.filter(([k], j) => j <= i || k !== name);
    }
    this.#update();
  }
  sort() {
    const withIndex = this.#list.map((e, i) => [e, i]);
    withIndex.sort((a, b) => {
      const x = a[0][0], y = b[0][0];
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const d = x.charCodeAt(i) - y.charCodeAt(i);
        if (d !== 0) return d;
      }
      return x.length - y.length || a[1] - b[1];
    });
    this.#list = withIndex.map(([e]) => e);
    this.#update();
  }
  forEach(cb, thisArg) {
    validateFunction(cb, 'callback');
    for (let i = 0; i < this.#list.length; i++) cb.call(thisArg, this.#list[i][1], this.#list[i][0], this);
  }
  *entries() { for (let i = 0; i < this.#list.length; i++) yield [this.#list[i][0], this.#list[i][1]]; }
  *keys() { for (const [k] of this.entries()) yield k; }
  *values() { for (const [, v] of this.entries()) yield v; }
  [Symbol.iterator]() { return this.entries(); }
  toString() { return this.#list.map(([k, v]) => `${formEncode(k)}=${formEncode(v)}`).join('&'); }
  get [Symbol.toStringTag]() { return 'URLSearchParams'; }
  [kCustomInspect](depth, options) {
    if (this.#list.length === 0) return 'URLSearchParams {}';
    return `URLSearchParams { ${this.#list.map(([k, v]) => `${inspect(k)} => ${inspect(v)}`).join(', ')} }`;
  }
}

const specialPorts = { 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443', 'ftp:': '21', 'file:': '' };

class URL {
  #c; // [href, protocol, username, password, hostname, port, pathname, search, hash, hasHost]
  #params = null;
  constructor(input, base = undefined) {
    if (arguments.length === 0) throw nodeError(TypeError, 'ERR_MISSING_ARGS', 'The "url" argument must be specified');
    input = `${input}`;
    const b = base === undefined ? undefined : `${base}`;
    const c = host.parseURL(input, b);
    if (c === null) {
      const e = nodeError(TypeError, 'ERR_INVALID_URL', 'Invalid URL');
      e.input = input;
      if (b !== undefined) e.base = b;
      throw e;
    }
    this.#c = c;
  }
  static canParse(input, base = undefined) {
    return host.parseURL(`${input}`, base === undefined ? undefined : `${base}`) !== null;
  }
  static parse(input, base = undefined) {
    try { return new URL(input, base); } catch { return null; }
  }
  #reparse(href) {
    const c = host.parseURL(href, undefined);
    if (c !== null) {
      this.#c = c;
      if (this.#params) URLSearchParams._reset(this.#params, c[7].slice(1));
    }
  }
  #build(parts) {
    const c = [...this.#c];
    for (const k of Object.keys(parts)) c[k] = parts[k];
    const [, protocol, username, password, hostname, port, pathname, search, hash, hasHost] = c;
    let s = protocol;
    if (hasHost) {
      s += '//';
      if (username !== '' || password !== '') s += `${username}${password !== '' ? `:${password}` : ''}@`;
      s += hostname + (port !== '' ? `:${port}` : '');
    } else if (pathname.startsWith('//')) {
      s += '/.';
    }
    return s + pathname + search + hash;
  }
  _setSearchFromParams(q) {
    const c = this.#c;
    c[7] = q === '' ? '' : `?${q}`;
    c[0] = this.#build({});
  }
  get href() { return this.#c[0]; }
  set href(v) {
    const c = host.parseURL(`${v}`, undefined);
    if (c === null) throw nodeError(TypeError, 'ERR_INVALID_URL', 'Invalid URL');
    this.#c = c;
    if (this.#params) URLSearchParams._reset(this.#params, c[7].slice(1));
  }
  get origin() {
    const p = this.#c[1];
    if (p === 'blob:') {
      try { return new URL(this.#c[6]).origin; } catch { return 'null'; }
    }
    if (p in specialPorts && p !== 'file:') return `${p}//${this.host}`;
    return 'null';
  }
  get protocol() { return this.#c[1]; }
  set protocol(v) {
    v = `${v}`.replace(/:.*$/, '');
    const next = `${v}:`;
    if ((next in specialPorts) !== (this.#c[1] in specialPorts)) return;
    this.#reparse(this.#build({ 1: next.toLowerCase() }));
  }
  get username() { return this.#c[2]; }
  set username(v) { if (this.#c[9] && this.#c[1] !== 'file:') this.#reparse(this.#build({ 2: host.percentEncode(`${v}`, 'userinfo') })); }
  get password() { return this.#c[3]; }
  set password(v) { if (this.#c[9] && this.#c[1] !== 'file:') this.#reparse(this.#build({ 3: host.percentEncode(`${v}`, 'userinfo') })); }
  get host() { return this.#c[4] + (this.#c[5] !== '' ? `:${this.#c[5]}` : ''); }
  set host(v) {
    v = `${v}`;
    const m = /^([^:/?#]*|\[[^\]]*\])(?::(\d*))?/.exec(v);
    if (!m || m[1] === '' && this.#c[1] in specialPorts && this.#c[1] !== 'file:') return;
    this.#reparse(this.#build({ 4: m[1], 5: m[2] ?? this.#c[5], 9: true }));
  }
  get hostname() { return this.#c[4]; }
  set hostname(v) {
    v = `${v}`.replace(/[:/?#].*$/, '');
    if (v === '' && this.#c[1] in specialPorts && this.#c[1] !== 'file:') return;
    this.#reparse(this.#build({ 4: v, 9: true }));
  }
  get port() { return this.#c[5]; }
  set port(v) {
    if (!this.#c[9] || this.#c[1] === 'file:') return;
    v = `${v}`;
    const m = /^\d*/.exec(v)[0];
    if (v !== '' && m === '') return;
    this.#reparse(this.#build({ 5: m }));
  }
  get pathname() { return this.#c[6]; }
  set pathname(v) {
    v = `${v}`;
    if (!this.#c[9] && !this.#c[6].startsWith('/') && !(this.#c[1] in specialPorts)) return;
    if (!v.startsWith('/') && (this.#c[9] || this.#c[1] in specialPorts)) v = `/${v}`;
    this.#reparse(this.#build({ 6: v.replace(/[?#]/g, (c) => (c === '?' ? '%3F' : '%23')) }));
  }
  get search() { return this.#c[7].length > 1 ? this.#c[7] : ''; }
  set search(v) {
    v = `${v}`;
    if (v.startsWith('?')) v = v.slice(1);
    this.#reparse(this.#build({ 7: v === '' ? '' : `?${v.replace(/#/g, '%23')}` }));
  }
  get searchParams() {
    if (this.#params === null) {
      this.#params = new URLSearchParams();
      URLSearchParams._attach(this.#params, this, this.#c[7].slice(1));
    }
    return this.#params;
  }
  get hash() { return this.#c[8].length > 1 ? this.#c[8] : ''; }
  set hash(v) {
    v = `${v}`;
    if (v.startsWith('#')) v = v.slice(1);
    this.#reparse(this.#build({ 8: v === '' ? '' : `#${v}` }));
  }
  toString() { return this.#c[0]; }
  toJSON() { return this.#c[0]; }
  get [Symbol.toStringTag]() { return 'URL'; }
  [kCustomInspect](depth, options) {
    if (depth < 0) return this;
    const obj = {
      href: this.href, origin: this.origin, protocol: this.protocol, username: this.username,
      password: this.password, host: this.host, hostname: this.hostname, port: this.port,
      pathname: this.pathname, search: this.search, searchParams: this.searchParams, hash: this.hash,
    };
    return `URL ${inspect(obj, { ...options, customInspect: true }).replace(/^\{/, '{')}`;
  }
}

function fileURLToPath(path) {
  const u = typeof path === 'string' ? new URL(path) : path;
  if (!(u instanceof URL)) throw invalidArgType('path', 'of type string or an instance of URL', path);
  if (u.protocol !== 'file:') throw nodeError(TypeError, 'ERR_INVALID_URL_SCHEME', 'The URL must be of scheme file');
  if (u.hostname !== '') {
    throw nodeError(TypeError, 'ERR_INVALID_FILE_URL_HOST', 'File URL host must be "localhost" or empty on linux');
  }
  const p = u.pathname;
  if (/%2f/i.test(p)) throw nodeError(TypeError, 'ERR_INVALID_FILE_URL_PATH', 'File URL path must not include encoded / characters');
  return percentDecode(p);
}

function pathToFileURL(filepath) {
  validateString(filepath, 'path');
  let resolved = posix.resolve(filepath);
  if (filepath.endsWith('/') && !resolved.endsWith('/')) resolved += '/';
  return new URL(`file://${host.percentEncode(resolved, 'path-file')}`);
}

const makeURLModule = once(() => ({ URL, URLSearchParams, fileURLToPath, pathToFileURL, domainToASCII: (d) => { try { return new URL(`http://${d}`).hostname; } catch { return ''; } } }));
