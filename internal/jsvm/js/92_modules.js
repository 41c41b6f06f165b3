// The built-in modules this half adds to builtinModules (90_globals.js):
// node:os, node:stream (and stream/promises), node:readline (and
// readline/promises), node:module, node:path/win32, node:util/types,
// node:string_decoder.

Object.assign(builtinModules, {
  'node:os': makeOsModule,
  'node:stream': makeStreamModule,
  'node:stream/promises': makeStreamPromisesModule,
  'node:readline': makeReadlineModule,
  'node:readline/promises': makeReadlinePromisesModule,
  'node:module': makeModuleModule,
  'node:path/win32': () => win32,
});

// performance: now() in milliseconds since the execution started, and
// timeOrigin; marks and measures are kept.
{
  const t0 = host.hrtime();
  const origin = host.now();
  const entries = [];
  const now = () => (host.hrtime() - t0) / 1e6;
  const performance = {
    now,
    timeOrigin: origin,
    mark(name) { const e = { name, entryType: 'mark', startTime: now(), duration: 0 }; entries.push(e); return e; },
    measure(name, start, end) {
      const at = (m) => (m === undefined ? undefined : entries.findLast((e) => e.name === m)?.startTime);
      const s = at(start) ?? 0;
      const e = { name, entryType: 'measure', startTime: s, duration: (at(end) ?? now()) - s };
      entries.push(e);
      return e;
    },
    getEntries: () => [...entries],
    getEntriesByName: (n) => entries.filter((e) => e.name === n),
    getEntriesByType: (t) => entries.filter((e) => e.entryType === t),
    clearMarks: () => { for (let i = entries.length - 1; i >= 0; i--) if (entries[i].entryType === 'mark') entries.splice(i, 1); },
    toJSON: () => ({ timeOrigin: origin }),
  };
  defineGlobal('performance', performance);
}
