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
