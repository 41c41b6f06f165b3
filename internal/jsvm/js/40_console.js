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
  table(data) { consoleObject.log(data); },
};
consoleObject.info = consoleObject.log;
consoleObject.debug = consoleObject.log;
consoleObject.error = consoleObject.warn;
consoleObject.dirxml = consoleObject.log;
consoleObject.groupCollapsed = consoleObject.group;
