// path.win32: Windows paths, after Node's lib/path.js rules (drive letters,
// UNC roots, both separators), for scripts that handle paths written on
// Windows. It works by splitting off the root and running the POSIX
// algorithms on the rest with "\" as "/".

function win32SplitRoot(p) {
  const unc = /^[\\/]{2}[^\\/]+[\\/]+[^\\/]+/.exec(p);
  if (unc) {
    const device = unc[0].replace(/\//g, '\\');
    const rest = p.slice(unc[0].length);
    return { device, abs: true, tail: rest.replace(/^[\\/]+/, ''), rootLen: unc[0].length + (rest.length - rest.replace(/^[\\/]+/, '').length) };
  }
  const drive = /^[A-Za-z]:/.exec(p);
  const device = drive ? drive[0] : '';
  const rest = p.slice(device.length);
  const abs = /^[\\/]/.test(rest);
  return { device, abs, tail: abs ? rest.replace(/^[\\/]+/, '') : rest, rootLen: device.length + (abs ? rest.length - rest.replace(/^[\\/]+/, '').length : 0) };
}

const win32 = {
  sep: '\\',
  delimiter: ';',
  normalize(path) {
    validateString(path, 'path');
    if (path === '') return '.';
    const { device, abs, tail } = win32SplitRoot(path);
    const isUNC = device.startsWith('\\\\');
    let t = normalizeString(tail.replace(/\\/g, '/'), !abs).replace(/\//g, '\\');
    if (t === '' && !abs) t = '.';
    if (t !== '' && /[\\/]$/.test(tail)) t += '\\';
    if (isUNC) return `${device}\\${t}`;
    return device + (abs ? '\\' : '') + t;
  },
  isAbsolute(path) {
    validateString(path, 'path');
    return /^[\\/]/.test(path) || /^[A-Za-z]:[\\/]/.test(path);
  },
  join(...args) {
    if (args.length === 0) return '.';
    const parts = [];
    for (const a of args) {
      validateString(a, 'path');
      if (a.length > 0) parts.push(a);
    }
    if (parts.length === 0) return '.';
    let joined = parts.join('\\');
    // A first part of two separators and a name stays a UNC root only if
    // it was one; otherwise the extra leading separators collapse.
    if (/^[\\/]{2}/.test(parts[0]) && !/^[\\/]{2}[^\\/]+[\\/]+[^\\/]/.test(joined)) joined = `\\${joined.replace(/^[\\/]+/, '')}`;
    return win32.normalize(joined);
  },
  resolve(...args) {
    let device = '';
    let tail = '';
    let abs = false;
    for (let i = args.length - 1; i >= -1; i--) {
      let p;
      if (i >= 0) {
        p = args[i];
        validateString(p, `paths[${i}]`);
        if (p.length === 0) continue;
      } else {
        p = config.cwd;
      }
      const r = win32SplitRoot(p);
      if (r.device !== '' && device !== '' && r.device.toLowerCase() !== device.toLowerCase()) continue;
      if (device === '') device = r.device;
      if (!abs) {
        tail = `${r.tail}\\${tail}`;
        abs = r.abs;
      }
      if (abs && device !== '') break;
      if (abs && i < 0) break;
    }
    let t = normalizeString(tail.replace(/\\/g, '/'), !abs).replace(/\//g, '\\');
    if (device.startsWith('\\\\')) return `${device}\\${t}`;
    return device + (abs ? '\\' : '') + t || '.';
  },
  relative(from, to) {
    validateString(from, 'from');
    validateString(to, 'to');
    if (from === to) return '';
    const f = win32.resolve(from), t = win32.resolve(to);
    if (f.toLowerCase() === t.toLowerCase()) return '';
    const fp = f.split('\\').filter(Boolean), tp = t.split('\\').filter(Boolean);
    if ((fp[0] ?? '').toLowerCase() !== (tp[0] ?? '').toLowerCase()) return t;
    let i = 0;
    while (i < fp.length && i < tp.length && fp[i].toLowerCase() === tp[i].toLowerCase()) i++;
    return [...Array(fp.length - i).fill('..'), ...tp.slice(i)].join('\\');
  },
  toNamespacedPath(path) {
    if (typeof path !== 'string' || path.length === 0) return path;
    const r = win32.resolve(path);
    if (/^[A-Za-z]:\\/.test(r)) return `\\\\?\\${r}`;
    if (r.startsWith('\\\\') && !r.startsWith('\\\\?\\') && !r.startsWith('\\\\.\\')) return `\\\\?\\UNC\\${r.slice(2)}`;
    return path;
  },
  dirname(path) {
    validateString(path, 'path');
    if (path === '') return '.';
    const { device, abs, tail, rootLen } = win32SplitRoot(path);
    const root = path.slice(0, rootLen);
    const t = tail.replace(/\\/g, '/');
    if (t === '' || !/[^/]/.test(t)) return root || '.';
    const d = posix.dirname(t.replace(/\/+$/, ''));
    if (d === '.') return root || (device !== '' ? device : '.');
    return root + path.slice(rootLen, rootLen + d.length);
  },
  basename(path, suffix) {
    if (suffix !== undefined) validateString(suffix, 'suffix');
    validateString(path, 'path');
    const { device, tail } = win32SplitRoot(path);
    if (tail === '' && device.startsWith('\\\\')) return posix.basename(device.replace(/\\/g, '/'), suffix);
    return posix.basename(tail.replace(/\\/g, '/'), suffix);
  },
  extname(path) {
    validateString(path, 'path');
    const { tail } = win32SplitRoot(path);
    return posix.extname(tail.replace(/\\/g, '/'));
  },
  parse(path) {
    validateString(path, 'path');
    const ret = { root: '', dir: '', base: '', ext: '', name: '' };
    if (path === '') return ret;
    const { rootLen, tail } = win32SplitRoot(path);
    ret.root = path.slice(0, rootLen);
    const t = tail.replace(/\\/g, '/');
    if (t === '') {
      ret.dir = ret.root;
      return ret;
    }
    const pp = posix.parse(t);
    ret.base = pp.base;
    ret.ext = pp.ext;
    ret.name = pp.name;
    const dirLen = pp.dir.length;
    ret.dir = dirLen > 0 ? path.slice(0, rootLen + dirLen) : ret.root;
    return ret;
  },
  format(obj) {
    validateObject(obj, 'pathObject');
    const dir = obj.dir || obj.root;
    const base = obj.base || `${obj.name || ''}${obj.ext ? (obj.ext[0] === '.' ? '' : '.') + obj.ext : ''}`;
    if (!dir) return base;
    return dir === obj.root ? `${dir}${base}` : `${dir}\\${base}`;
  },
  matchesGlob: undefined,
};
win32.win32 = win32;
win32.posix = posix;
posix.win32 = win32;
delete win32.matchesGlob;
