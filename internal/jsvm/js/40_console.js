// console: log, info and debug to stdout; warn, error and trace to stderr.
// Each call is one write to the host, which streams it at once.

let groupIndent = '';
const consoleCounts = new Map();
const consoleTimers = new Map();

function consoleWrite(fd, s) {
  if (groupIndent !== '') s = groupIndent + s.replaceAll('\n', `\n${groupIndent}`);
  host.write(fd, `${s}\n`);
}

function formatDuration(ms) {
  if (ms >= 1000) {
    if (ms >= 60000) {
      if (ms >= 3600000) return `${(ms / 3600000).toFixed(3)}h`;
      return `${(ms / 60000).toFixed(3)}min`;
    }
    return `${(ms / 1000).toFixed(3)}s`;
  }
  return `${Number(ms.toFixed(3))}ms`;
}

const consoleObject = {
  log(...args) { consoleWrite(1, formatArgs(undefined, args)); },
  warn(...args) { consoleWrite(2, formatArgs(undefined, args)); },
  dir(obj, options) { consoleWrite(1, inspect(obj, { customInspect: false, ...options })); },
  trace(...args) {
    const frames = (new Error().stack ?? '').replace(/\n+$/, '').split('\n').slice(1).join('\n');
    consoleWrite(2, `Trace${args.length ? `: ${formatArgs(undefined, args)}` : ''}${frames ? `\n${frames}` : ''}`);
  },
  assert(value, ...args) {
    if (!value) {
      args[0] = `Assertion failed${args.length === 0 ? '' : `: ${args[0]}`}`;
      consoleObject.warn(...args);
    }
  },
  count(label = 'default') {
    label = `${label}`;
    const n = (consoleCounts.get(label) ?? 0) + 1;
    consoleCounts.set(label, n);
    consoleObject.log(`${label}: ${n}`);
  },
  countReset(label = 'default') { consoleCounts.delete(`${label}`); },
  time(label = 'default') {
    label = `${label}`;
    if (consoleTimers.has(label)) {
      host.write(2, `(node:${config.pid}) Warning: Label '${label}' already exists for console.time()\n`);
      return;
    }
    consoleTimers.set(label, host.now());
  },
  timeEnd(label = 'default') {
    label = `${label}`;
    if (consoleObject.timeLog(label, ...[]) !== false) consoleTimers.delete(label);
  },
  timeLog(label = 'default', ...data) {
    label = `${label}`;
    const start = consoleTimers.get(label);
    if (start === undefined) {
      host.write(2, `(node:${config.pid}) Warning: No such label '${label}' for console.timeLog()\n`);
      return false;
    }
    consoleObject.log(`${label}: ${formatDuration(host.now() - start)}`, ...data);
    return undefined;
  },
  group(...args) {
    if (args.length) consoleObject.log(...args);
    groupIndent += '  ';
  },
  groupEnd() { groupIndent = groupIndent.slice(0, -2); },
  table(data, properties) {
    if (properties !== undefined && !Array.isArray(properties)) throw invalidArgType('properties', 'an instance of Array', properties);
    if (data === null || typeof data !== 'object') return consoleObject.log(data);
    consoleObject.log(consoleTable(data, properties));
    return undefined;
  },
};

// consoleTable renders console.table's table as Node's lib/internal/cli_table.js.
function consoleTable(data, properties) {
  const cell = (v) => {
    const depth = v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 2 ? -1 : 0;
    return inspect(v, { depth, maxArrayLength: 3, breakLength: Infinity });
  };
  const indexArray = (n) => Array.from({ length: n }, (_, i) => cell(i));
  if (data instanceof Map) {
    const keys = [], values = [];
    for (const [k, v] of data) { keys.push(cell(k)); values.push(cell(v)); }
    return renderTable(['(iteration index)', 'Key', 'Values'], [indexArray(keys.length), keys, values]);
  }
  if (data instanceof Set) {
    const values = [];
    for (const v of data) values.push(cell(v));
    return renderTable(['(iteration index)', 'Values'], [indexArray(values.length), values]);
  }
  const map = Object.create(null);
  let hasPrimitives = false;
  const valuesKeyArray = [];
  const indexKeyArray = Object.keys(data);
  for (let i = 0; i < indexKeyArray.length; i++) {
    const item = data[indexKeyArray[i]];
    const primitive = item === null || (typeof item !== 'function' && typeof item !== 'object');
    if (properties === undefined && primitive) {
      hasPrimitives = true;
      valuesKeyArray[i] = cell(item);
    } else {
      const keys = properties || Object.keys(item);
      for (const key of keys) {
        map[key] ??= [];
        if ((primitive && properties) || !hasOwn(item, key)) map[key][i] = '';
        else map[key][i] = cell(item[key]);
      }
    }
  }
  const keys = Object.keys(map);
  const values = Object.values(map);
  if (hasPrimitives) {
    keys.push('Values');
    values.push(valuesKeyArray);
  }
  keys.unshift('(index)');
  values.unshift(indexKeyArray);
  return renderTable(keys, values);
}

// stringWidth is the columns s takes: code points, wide East Asian ones
// and emoji two, combining marks none.
function stringWidth(s) {
  let w = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if ((c >= 0x300 && c <= 0x36f) || (c >= 0x200b && c <= 0x200f) || c === 0xfe0f) continue;
    if ((c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf) || (c >= 0xac00 && c <= 0xd7a3) ||
        (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
        (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1f64f) || (c >= 0x1f900 && c <= 0x1f9ff) || (c >= 0x20000 && c <= 0x3fffd)) {
      w += 2;
    } else {
      w += 1;
    }
  }
  return w;
}

function renderTable(head, columns) {
  const rows = [];
  const widths = head.map((h) => stringWidth(h));
  const longest = Math.max(...columns.map((a) => a.length));
  for (let i = 0; i < head.length; i++) {
    const column = columns[i];
    for (let j = 0; j < longest; j++) {
      if (rows[j] === undefined) rows[j] = [];
      const value = rows[j][i] = hasOwn(column, j) ? column[j] : '';
      widths[i] = Math.max(widths[i] || 0, stringWidth(value));
    }
  }
  const renderRow = (row) => {
    let out = '│ ';
    for (let i = 0; i < row.length; i++) {
      out += row[i] + ' '.repeat(widths[i] - stringWidth(row[i]));
      if (i !== row.length - 1) out += ' │ ';
    }
    return `${out} │`;
  };
  const divider = widths.map((w) => '─'.repeat(w + 2));
  let result = `┌${divider.join('┬')}┐\n${renderRow(head)}\n├${divider.join('┼')}┤\n`;
  for (const row of rows) result += `${renderRow(row)}\n`;
  return `${result}└${divider.join('┴')}┘`;
}
consoleObject.info = consoleObject.log;
consoleObject.debug = consoleObject.log;
consoleObject.error = consoleObject.warn;
consoleObject.dirxml = consoleObject.log;
consoleObject.groupCollapsed = consoleObject.group;
