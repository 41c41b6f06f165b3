// CommonJS, as Node's loader (lib/internal/modules/cjs/loader.js) resolves
// and runs it: node:module's createRequire, require.resolve and
// require.cache, module.exports, __filename and __dirname; files of the
// workspace (.js, .cjs, .json, directories with package.json "main" or
// index.js) and packages in node_modules directories (package.json
// "exports" strings and require/node/default conditions, "main"). The host
// compiles each file (host.compileCJS). Also import.meta.resolve.

const cjsCache = Object.create(null);
const cjsExtensions = ['.js', '.json', '.node'];

function cjsNotFound(request, parent) {
  const stack = [];
  for (let m = parent; m; m = m.parent) if (m.filename) stack.push(m.filename);
  const e = new Error(`Cannot find module '${request}'${stack.length ? `\nRequire stack:\n- ${stack.join('\n- ')}` : ''}`);
  e.code = 'MODULE_NOT_FOUND';
  e.requireStack = stack;
  return e;
}

function cjsTryFile(p) { return host.fileKind(p) === 1 ? p : undefined; }

function cjsTryExtensions(p) {
  for (const ext of cjsExtensions) {
    const f = cjsTryFile(p + ext);
    if (f) return f;
  }
  return undefined;
}

function cjsReadPackage(dir) {
  const f = `${dir}/package.json`;
  if (host.fileKind(f) !== 1) return undefined;
  try {
    return JSON.parse(readFileSync(f, 'utf8'));
  } catch (e) {
    e.message = `Error parsing ${f}: ${e.message}`;
    throw e;
  }
}

function cjsTryDirectory(dir) {
  const pkg = cjsReadPackage(dir);
  if (pkg && typeof pkg.main === 'string' && pkg.main !== '') {
    const m = posix.resolve(dir, pkg.main);
    const f = cjsTryFile(m) ?? cjsTryExtensions(m) ?? cjsTryExtensions(`${m}/index`);
    if (f) return f;
  }
  return cjsTryExtensions(`${dir}/index`);
}

function cjsLoadAsPath(p) {
  if (p.endsWith('/')) return cjsTryDirectory(p.slice(0, -1) || '/');
  return cjsTryFile(p) ?? cjsTryExtensions(p) ?? (host.fileKind(p) === 2 ? cjsTryDirectory(p) : undefined);
}

// cjsExportsTarget picks the target of a package.json "exports" for a
// subpath ("." or "./x") under the require conditions.
function cjsExportsTarget(exportsField, subpath) {
  const pick = (t) => {
    if (typeof t === 'string') return t;
    if (Array.isArray(t)) {
      for (const x of t) {
        const r = pick(x);
        if (r !== undefined) return r;
      }
      return undefined;
    }
    if (t && typeof t === 'object') {
      for (const k of Object.keys(t)) {
        if (k === 'require' || k === 'node' || k === 'default') {
          const r = pick(t[k]);
          if (r !== undefined) return r;
        }
      }
    }
    return undefined;
  };
  let map = exportsField;
  if (typeof map === 'string' || Array.isArray(map) || (map && typeof map === 'object' && !Object.keys(map).some((k) => k.startsWith('.')))) {
    map = { '.': map };
  }
  if (!map || typeof map !== 'object') return undefined;
  if (hasOwn(map, subpath)) return pick(map[subpath]);
  for (const k of Object.keys(map)) {
    const star = k.indexOf('*');
    if (star >= 0 && subpath.startsWith(k.slice(0, star)) && subpath.endsWith(k.slice(star + 1))) {
      const t = pick(map[k]);
      if (typeof t === 'string') return t.replaceAll('*', subpath.slice(star, subpath.length - (k.length - star - 1)));
    }
  }
  return undefined;
}

function cjsResolvePackage(request, fromDir) {
  const m = /^((?:@[^/]+\/)?[^/]+)(\/.*)?$/.exec(request);
  if (m === null) return undefined;
  const [, name, rest = ''] = m;
  for (let dir = fromDir; ; dir = posix.dirname(dir)) {
    if (!dir.endsWith('/node_modules')) {
      const pkgDir = `${dir === '/' ? '' : dir}/node_modules/${name}`;
      if (host.fileKind(pkgDir) === 2) {
        const pkg = cjsReadPackage(pkgDir);
        if (pkg && pkg.exports !== undefined && pkg.exports !== null) {
          const t = cjsExportsTarget(pkg.exports, `.${rest}`);
          if (t === undefined) {
            const e = new Error(`Package subpath '.${rest}' is not defined by "exports" in ${pkgDir}/package.json`);
            e.code = 'ERR_PACKAGE_PATH_NOT_EXPORTED';
            throw e;
          }
          const f = cjsTryFile(posix.resolve(pkgDir, t));
          if (f) return f;
        }
        const f = cjsLoadAsPath(pkgDir + rest);
        if (f) return f;
      }
    }
    if (dir === '/') return undefined;
  }
}

function cjsResolve(request, parent) {
  validateString(request, 'id');
  if (request === '') throw nodeError(TypeError, 'ERR_INVALID_ARG_VALUE', "The argument 'id' must be a non-empty string. Received ''");
  const bare = request.startsWith('node:') ? request.slice(5) : request;
  if (builtinModules[`node:${bare}`] !== undefined && (request.startsWith('node:') || !request.includes('/') || builtinModules[`node:${request}`])) {
    return `node:${bare}`;
  }
  if (request.startsWith('node:')) {
    throw nodeError(Error, 'ERR_UNKNOWN_BUILTIN_MODULE', `No such built-in module: ${request}`);
  }
  const dir = parent?.path ?? config.cwd;
  let found;
  if (request.startsWith('./') || request.startsWith('../') || request === '.' || request === '..' || request.startsWith('/')) {
    found = cjsLoadAsPath(posix.resolve(dir, request) + (request.endsWith('/') ? '/' : ''));
  } else {
    found = cjsResolvePackage(request, dir);
  }
  if (found === undefined) throw cjsNotFound(request, parent);
  return found;
}

class CJSModule {
  constructor(id = '', parent) {
    this.id = id;
    this.path = posix.dirname(id);
    this.exports = {};
    this.filename = null;
    this.loaded = false;
    this.children = [];
    this.paths = [];
    Object.defineProperty(this, 'parent', { value: parent, writable: true, enumerable: false, configurable: true });
    if (parent) parent.children.push(this);
  }
  require(id) { return cjsLoad(id, this); }
}

function cjsLoad(request, parent) {
  const name = cjsResolve(request, parent);
  if (name.startsWith('node:')) return builtinModules[name]();
  const cached = cjsCache[name];
  if (cached !== undefined) {
    if (parent && !parent.children.includes(cached)) parent.children.push(cached);
    return cached.exports;
  }
  if (name.endsWith('.mjs')) {
    throw nodeError(Error, 'ERR_REQUIRE_ESM', `require() of ES Module ${name} not supported.\nInstead change the require of ${name} to a dynamic import() which is available in all CommonJS modules.`);
  }
  if (name.endsWith('.node')) throw nodeError(Error, 'ERR_DLOPEN_FAILED', `Cannot load native addon ${name}: the js backend runs JavaScript only`);
  const m = new CJSModule(name, parent);
  m.filename = name;
  m.paths = cjsPaths(m.path);
  cjsCache[name] = m;
  try {
    const compiled = host.compileCJS(name);
    if (name.endsWith('.json')) {
      try {
        m.exports = JSON.parse(compiled);
      } catch (e) {
        e.message = `${name}: ${e.message}`;
        throw e;
      }
    } else {
      const req = cjsMakeRequire(m);
      compiled.call(m.exports, m.exports, req, m, name, m.path);
    }
  } catch (e) {
    delete cjsCache[name];
    if (parent) parent.children.splice(parent.children.indexOf(m), 1);
    throw e;
  }
  m.loaded = true;
  return m.exports;
}

function cjsPaths(dir) {
  const out = [];
  for (let d = dir; ; d = posix.dirname(d)) {
    if (!d.endsWith('/node_modules')) out.push(`${d === '/' ? '' : d}/node_modules`);
    if (d === '/') return out;
  }
}

function cjsMakeRequire(m) {
  const require = function require(id) { return cjsLoad(id, m); };
  require.resolve = function resolve(request) {
    const r = cjsResolve(request, m);
    return r.startsWith('node:') && !request.startsWith('node:') ? request : r;
  };
  require.resolve.paths = (request) => (builtinModules[`node:${request}`] ? null : cjsPaths(m.path));
  require.cache = cjsCache;
  require.main = undefined;
  require.extensions = Object.create(null);
  return require;
}

function createRequire(filename) {
  let p = filename;
  if (p instanceof URL || (typeof p === 'string' && p.startsWith('file:'))) p = fileURLToPath(p);
  if (typeof p !== 'string' || !posix.isAbsolute(p)) {
    throw nodeError(TypeError, 'ERR_INVALID_ARG_VALUE', `The argument 'filename' must be a file URL object, file URL string, or absolute path string. Received ${inspect(filename)}`);
  }
  const m = new CJSModule(p.endsWith('/') ? `${p}[eval]` : p);
  m.filename = m.id;
  m.paths = cjsPaths(m.path);
  m.loaded = true;
  return cjsMakeRequire(m);
}

// internals.cjsModule returns [exports, names] of a CommonJS file an ES
// module imports: the default export is module.exports, the named exports
// its own enumerable keys.
internals.cjsModule = function cjsModule(name) {
  const exp = cjsLoad(name, undefined);
  const names = exp !== null && (typeof exp === 'object' || typeof exp === 'function')
    ? Object.keys(exp).filter((k) => k !== 'default' && /^[A-Za-z_$][\w$]*$/.test(k)) : [];
  return [exp, names, true];
};

const makeModuleModule = once(() => {
  const Module = CJSModule;
  Object.assign(Module, {
    createRequire,
    builtinModules: Object.keys(builtinModules).map((k) => k.slice(5)).filter((k) => !k.includes('/') || ['fs/promises', 'path/posix', 'path/win32', 'stream/promises', 'timers/promises', 'readline/promises', 'assert/strict', 'util/types'].includes(k)),
    isBuiltin: (s) => typeof s === 'string' && builtinModules[`node:${s.replace(/^node:/, '')}`] !== undefined,
    Module,
    _cache: cjsCache,
    _extensions: Object.create(null),
    register() { throw nodeError(Error, 'ERR_FEATURE_UNAVAILABLE_ON_PLATFORM', 'module.register is not available in the js backend'); },
    syncBuiltinESMExports() {},
    findSourceMap() { return undefined; },
  });
  return Module;
});

// internals.initMeta adds the functions of import.meta: resolve.
internals.initMeta = function initMeta(meta) {
  const base = meta.url;
  meta.resolve = function resolve(specifier) {
    const spec = `${specifier}`;
    const bare = spec.startsWith('node:') ? spec.slice(5) : spec;
    if (builtinModules[`node:${bare}`] !== undefined) return `node:${bare}`;
    if (spec.startsWith('./') || spec.startsWith('../') || spec.startsWith('/') || spec === '.' || spec === '..' || /^[a-z][a-z0-9+.-]*:/i.test(spec)) {
      return new URL(spec, base).href;
    }
    if (config.trusted.includes(spec)) return spec;
    const e = nodeError(Error, 'ERR_MODULE_NOT_FOUND', `Cannot find package '${spec}' imported from ${fileURLToPath(base)}`);
    throw e;
  };
};
