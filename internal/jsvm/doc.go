// Package jsvm is the js backend: an execution's source is an ES module, run
// in a fresh QuickJS runtime, with node:fs/promises on the workspace.
//
// # What an execution does
//
// The source is compiled as a module named "<source>" in the cwd
// (/workspace/<source> by default: stack traces and import.meta show that
// name, and its relative imports resolve from the cwd). Static imports,
// dynamic imports and top-level await work. Once the module has evaluated,
// a default-exported function is called with the execution's input (the
// JSON value run.Job.Input, parsed; undefined when none was given) and
// awaited; the JSON of what it returns is the execution's value
// (run.Outcome.Value). A module without a default-exported function, or one
// that returns undefined, has no value (its JSON is the engine's
// JSON.stringify text: desk exec prints it as is, undoing the HTML escaping
// of the JSON layers between). The execution then goes on as Node's event
// loop would, until no timer keeps it alive; its exit code is
// process.exitCode (0), or the code given to process.exit, which ends it at
// once. process.nextTick has its own queue, run as Node runs it: after the
// main module's microtasks, and after each timer's callback before the
// microtasks it queued; microtasks run after each round of ticks.
// process.env coerces what is assigned to strings; stdout, stderr and stdin
// have no isTTY (undefined, as Node's when they are not terminals).
//
// An exception nothing catches, a promise rejected with no handler by the
// end of the microtask queue's turn, and a rejected default export end the
// execution with exit code 1, as in Node (whatever process.exitCode was):
// stderr gets "Uncaught " and the error as Node prints it (its stack:
// functions, workspace files, lines and columns). A module whose result can
// never settle (awaiting a promise nothing will resolve) exits 13 with a
// warning, as Node's unsettled top-level await. Both are completed
// executions (the program ran); only the backend's own failures (a limit,
// the engine's memory) fail the execution (run's exit code 125).
//
// # Modules
//
//   - Workspace files: relative ("./lib.js", "../x/y.mjs"), absolute
//     ("/workspace/lib.js") or file: URL specifiers name files of the
//     workspace; .js and .mjs are ES modules, .json a module whose default
//     export is the parsed value (with or without `with { type: 'json' }`),
//     .cjs a CommonJS module (its module.exports the default export, its
//     keys the named ones). As in Node's ESM, the extension is required (a
//     missing one gets a hint) and directories are not modules. Every
//     import is read from the store when the execution first needs it: a
//     module one execution writes, the next imports.
//   - TypeScript: .ts and .mts files are modules whose types esbuild's
//     transform strips (typescript.go; target ES2022, so decorators are
//     lowered), and a main module that does not parse as JavaScript is
//     tried as TypeScript (desk exec --file main.ts sends the content
//     only). A TypeScript module's import of a missing ./x.js names x.ts
//     when it exists. Printed stacks of uncaught errors and util.inspect
//     map positions back to the TypeScript lines (esbuild's source map);
//     error.stack itself keeps the engine's. No type checking; .tsx and
//     .cts are refused.
//   - CommonJS through node:module's createRequire(import.meta.url):
//     require resolves as Node's CommonJS loader (files with .js, .json
//     tried, directories with package.json "main" or index.js, packages in
//     node_modules directories with "exports" or "main"), with
//     require.resolve, require.cache, module.exports, __filename and
//     __dirname (js/74_module.js; the host compiles each file, counted
//     against MaxModules and MaxSourceBytes). import.meta.resolve resolves
//     a specifier to its URL.
//   - Built-in modules, by "node:" name or bare: fs/promises and fs (the
//     workspace; the sync and callback forms, file handles, opendir, cp,
//     streams), path (POSIX), buffer, process, util, url, events, assert,
//     crypto (hashes, HMAC, random), timers, timers/promises, console, os
//     (the execution's world: one CPU, MaxMemory as the memory, no network
//     interfaces, root), module, stream and stream/promises (Readable,
//     Writable, Duplex, Transform, PassThrough, pipeline, finished),
//     readline and readline/promises (createInterface over a stream).
//     Node's other built-ins (child_process, net, http, ...) are refused
//     with a message naming what is offered.
//   - Trusted modules (Options.Modules): bare specifiers an operator offers,
//     as source text; their relative imports resolve among themselves.
//   - Host modules (Options.HostModules): modules implemented in Go, whose
//     functions take and return JSON (each an async function; a Go error
//     rejects with an Error carrying its Code() and Props()). desk serve
//     gives the backend desk:git (package deskgit: git on the workspace
//     store through gitws); another desk: specifier says it is not
//     available on this server.
//
// # Globals
//
// console (log, info, debug to stdout; warn, error, trace to stderr; each
// call is written at once, so output streams live), setTimeout,
// setInterval, setImmediate and their clear functions, queueMicrotask,
// structuredClone, TextEncoder, TextDecoder, URL, URLSearchParams, atob,
// btoa, Buffer, process, crypto (randomUUID, getRandomValues),
// DOMException, global, and fetch with Headers, Request, Response,
// AbortController, AbortSignal and ReadableStream (see Network).
// util.inspect, and so console.log, format values as Node does (the parity
// test compares them with Node).
//
// # Network
//
// fetch is the WHATWG one, as Node 20 has it (js/91_fetch.js, fetch.go).
// Every request goes through the execution's network, run.Job.Net, which
// enforces the workspace's egress policy: a refused request is an ordinary
// response (403, and a body saying why), which fetch returns as it would
// any other. Without a network (Job.Net nil) fetch rejects with a
// TypeError whose code is ERR_DESK_NO_NETWORK and whose message ends with
// run.ErrNoNetwork's text ("fetch failed: GET https://x/: no network: the
// workspace's egress policy is none").
//
// What works as in Node (TestFetch_node runs a table of scripts under Node
// 20 and here against one loopback server and compares stdout and the exit
// code): methods (the standard ones upper-cased, CONNECT, TRACE and TRACK
// refused), headers (Headers: validation and its messages, sorted
// iteration, values of one name joined, getSetCookie, immutable response
// headers), bodies from strings, ArrayBuffers, typed arrays,
// URLSearchParams and ReadableStreams (duplex: 'half', sent chunked), the
// default request headers (accept, accept-language, sec-fetch-mode,
// user-agent "node"), gzip responses (decoded by the transport), redirect
// 'follow' (at most 20; 301/302 turn POST into GET, 303 all but HEAD,
// 307/308 resend the body; Authorization and Cookie dropped across
// origins), 'manual' (the 3xx response) and 'error' (fetch failed,
// unexpected redirect), status, statusText, ok, url, redirected, type,
// Response.body as a ReadableStream (getReader, read, cancel, releaseLock,
// for await, tee), text, json, arrayBuffer, bytes, clone, bodyUsed, null
// bodies (HEAD, 204, 304), Response.json/error/redirect, new Response(...),
// AbortController, AbortSignal (abort, timeout, any, onabort,
// addEventListener, throwIfAborted), aborting before, during the request
// and during the body, failures shaped as Node's (TypeError "fetch
// failed" whose cause is Error "connect ECONNREFUSED 127.0.0.1:PORT" with
// code, errno, syscall, address and port; "getaddrinfo ENOTFOUND host";
// "unknown scheme"; "redirect count exceeded").
//
// How it runs: fetch hands the request to the host, which sends it on a
// goroutine of its own; the response's head comes back to the event loop
// as an event, and each read of the body asks the host for the next chunk
// (at most 64 KiB), which the goroutine reads from the connection only
// then. A request waiting for its response, and a read waiting for its
// chunk, keep the execution alive as a timer does; a body nobody reads
// does not. An abort (signal, cancel) cancels the request's context at
// once, and the end of the execution (return, kill, timeout) cancels every
// request in flight and waits for their goroutines. A response whose body
// nobody reads holds its connection until MaxFetches fetches are open;
// then the oldest such body is dropped (as Node's garbage collector would
// end it), and reading it later fails with TypeError "terminated" (cause
// code ERR_DESK_FETCH_DROPPED). Only when every open fetch is waiting for
// its response or a chunk does one more end the execution with the
// MaxFetches limit. Bounds: what a script
// holds of responses is in the engine, within MaxMemory (a body read with
// text() larger than that ends the execution with the MaxMemory limit;
// read chunk by chunk, it can be any size); outside the engine at most one
// chunk per fetch, MaxFetches (64) fetches in flight, each request body at
// most MaxFetchBodyBytes (16 MiB; a stream body is read whole before it is
// sent); response header size is bounded by Job.Net's transport.
//
// Differences from Node: no Blob, FormData, File or EventTarget (blob()
// and formData() reject with ERR_DESK_UNSUPPORTED); no BYOB readers, no
// pipeTo or pipeThrough, no WritableStream or TransformStream; no
// keepalive, no cookies jar, no HTTP/2 from the script's side (Job.Net
// decides); the Accept-Encoding header is the transport's (gzip), not
// undici's "gzip, deflate"; a stream request body is read whole before the
// request starts (within MaxFetchBodyBytes); data: and file: URLs are
// refused ("unknown scheme").
//
// # Design
//
// The engine is QuickJS (release 2026-06-04) from modernc.org/libquickjs:
// C transpiled to Go, no cgo. Package qjs is this backend's binding to it;
// its doc says why it does not go through modernc.org/quickjs. Each
// execution gets its own runtime and realm, made in about a millisecond and
// freed at the end: nothing is shared between executions but the read-only
// bytecode of the runtime's JavaScript half.
//
// That half (js/*.js, embedded) implements the globals and the built-in
// modules on top of a host object of Go functions (host_*.go, fs.go,
// encoding.go, url.go, crypto.go): the store calls, byte encodings, URL
// parsing, hashing, output, stdin, timers. It is compiled once per process
// into bytecode; an execution loads that bytecode (about 1 ms) rather than
// parsing the source. The host object is passed to the runtime's function
// and never reachable from the user's code: it is not a global.
//
// fs calls are synchronous host calls; the promise API wraps them in async
// functions. Errors are built the way Node builds them (code, errno,
// syscall, path, dest; the same messages), and a differential test runs
// every node:fs/promises function, on success and failure paths, under Node
// on a temporary directory and here on a workspace, and compares the
// output line by line. Paths resolve against the cwd inside the store; the
// file creation mask is 022; the process has root's rights (access fails
// only for X_OK on a file without an execute bit).
//
// The event loop runs on the engine's goroutine: run the microtask queue,
// check for unhandled rejections and the result, wait for the next timer (or
// the ctx), fire it.
//
// # Stopping an execution
//
// Kill, timeout and server stop cancel ctx, which aborts the engine
// (qjs.Context.Abort): running JavaScript gets an uncatchable error at the
// engine's next interrupt check, every host call throws one, every
// allocation of the engine that needs new memory fails, and the event loop
// returns. The engine checks for interrupts at every call and backward jump
// (Abort resets the countdown it keeps between two checks, so the next tick
// checks), every 10,000 steps of a regexp match, and wherever a built-in
// calls back into JavaScript (a sort's comparator, map's or replace's
// function, a getter, a Proxy trap). JavaScript, however it loops, stops
// within about a millisecond.
//
// A built-in call that does neither runs on to its end. Run waits
// StopGrace (20 ms) for the engine after ctx ended, then returns anyway: the
// execution ends at once as killed or timed out (stderr says the engine was
// left running), its MaxConcurrent slot is free, and the engine finishes
// the call in the background on its own OS thread, given the lowest CPU
// priority (nice 19), then stops and frees its memory. Such stuck engines
// are counted (Backend.Stats: Stuck now, StuckEver, Recovered) and logged
// (Options.Logger). MaxStuck (8) of them take nothing from MaxConcurrent;
// past MaxConcurrent+MaxStuck engines, running or stuck, new executions fail
// with a LimitError naming MaxStuck, so at most 16 engines exist, each
// within MaxMemory + MaxStackMemory. Nothing in the process can end a stuck
// engine sooner: for the unbounded calls below the remedy is to end the
// process that runs the engine: Options.OnStuck tells a supervisor, and
// desk serve's per-workspace worker process restarts on it as soon as
// nothing runs in its workspace (the next request starts a new worker), so
// a stuck engine's CPU lasts as long as the workspace's other work, not the
// call. A server without workers (--workers=false) keeps stuck engines
// until they finish.
//
// The built-in calls that overrun, with how long the call in progress goes
// on after the abort (measured on the 2-core machine of docs/benchmarks.md
// under load; MaxMemory 64 MiB bounds the inputs):
//
//   - Stop at once or within milliseconds: JavaScript loops and calls;
//     sorts with a comparator; regexps, catastrophic backtracking included;
//     anything calling back (Array.from with a function, forEach, reduce,
//     replace with a function, JSON.parse with a reviver, structuredClone,
//     which is JavaScript here).
//   - Stop at their next allocation of new memory, or run to their end,
//     bounded by the input the memory limit allows, at most about 1.5 s:
//     join, split, replaceAll (16 million characters 1.2 s), repeat,
//     padStart/padEnd (55 million characters 0.2-0.3 s), JSON.parse,
//     JSON.stringify (30 MB of output 1.3 s), BigInt multiplication (0.4 s
//     near the size limit).
//   - Run to their end, bounded by the memory limit, seconds:
//     Array.prototype.sort without a comparator (its string comparisons:
//     200,000 numbers 65-160 ms, 400,000, about the most that fit, 0.7 s,
//     3.9 s on the loaded machine); typed array sort without a comparator
//     (4 million doubles, about the most that fit, since the sort takes 8
//     bytes an element besides, 0.8-1.4 s; 7 million bytes 0.7 s); BigInt
//     toString (quadratic: 560,000 bits 0.8-2.1 s, 980,000, near the size
//     limit, 3.1 s).
//   - Unbounded by memory, minutes to forever: the generic Array methods
//     that visit every index of a sparse array or an array-like without
//     calling back (measured: indexOf and join over holes; lastIndexOf,
//     includes and the others that walk indices so work the same way):
//     about 90 ns an index below 2^31 and 200 ns above, so 5-10 min for
//     new Array(2**32 - 1) and years for { length: 2**53 - 1 }; and string
//     search with a long pattern, which compares naively (measured:
//     indexOf; lastIndexOf, includes, split, replace and replaceAll with a
//     string pattern search the same way): about 2 ns a character pair, 18 s
//     for a 100,000-character pattern in 200,000 characters, days at the
//     memory limit.
//
// The engine's memory is bounded on every allocation path: the heap by
// MaxMemory, through the engine's allocator hooks; the frames of the calls
// on the stack, which the engine allocates apart (alloca), by
// MaxStackMemory, through the call depth limit (qjs.Options.FrameMemory:
// the depth limit is lowered so that the largest frame of the code loaded,
// times the depth, fits); the goroutine and the C stacks by the depth limit
// (about 16 MiB at 5000). Host functions copy what crosses to Go (file
// contents, output), bounded by the fs and output limits.
//
// # CPU time
//
// The engine's goroutine is locked to its OS thread for the execution (see
// "Stopping an execution"), and everything the engine does, host calls and
// the store's reads and writes included, runs on it: its thread's CPU
// clock is the execution's CPU time (run.ThreadMeter, given to run with
// Job.MeterCPU). run records it as Usage.CPU and stops the execution at its
// CPU limit (cpu-limit, exit code 152) by cancelling its context, which
// aborts the engine at its next interrupt check. fetch's transfers run on
// other goroutines and are not counted.
//
// # Security model
//
// An execution reaches only what the runtime gives it: the workspace store
// through the fs functions (paths are resolved inside the store, whose root
// is the workspace's; ".." stops there), its stdin, stdout and stderr, the
// environment run gives it (never the host's), the clock, randomness, and
// the modules described above, and fetch through run.Job.Net.
// process.stdin reads the job's stdin on the
// engine's goroutine, blocking it until bytes arrive; a stdin stream
// (run.ExecOptions.StdinStream) is closed by run when the execution is
// killed or times out, so such a read returns then (a read that blocks past
// StopGrace is left to the engine, stuck until it returns: see "Stopping an
// execution"). There is no socket (the network is fetch through Job.Net
// alone), no host filesystem, no process, no require, no engine module
// (std, os), and the engine's own globals are not exposed. The engine runs
// in-process: its memory is bounded (MaxMemory: a
// failed allocation ends the execution even if the script catches "out of
// memory"; MaxStackMemory for its frames), its stack is bounded
// (MaxStackDepth), its run time by the execution's timeout (but see
// "Stopping an execution" for the built-in calls that overrun it), and every
// resource it can consume through the host by a limit. A bug in the
// transpiled engine is a bug in the desk process: the sandbox backend is the
// one for code that needs a kernel boundary.
//
// # Limits
//
// Every limit is an Options field with a documented default: wall time
// (Timeout, MaxTimeout, given to run through run.TimeoutBounds), MaxMemory,
// MaxStackDepth, MaxStackMemory, MaxOutputBytes, MaxSourceBytes,
// MaxModules, MaxModuleDepth, MaxFSCalls, MaxFSBytes, MaxTimers,
// MaxFetches, MaxFetchBodyBytes, MaxConcurrent, MaxStuck (and StopGrace, the wait for an aborted engine). The
// input and the value are bounded by run (MaxInputBytes, MaxValueBytes). A
// limit that is hit ends the execution as failed with a *LimitError (stderr:
// "desk: js: limit exceeded: MaxFSCalls (...)"), except the stack limit,
// whose "stack overflow" a script may catch, as in Node.
//
// # Not done
//
//   - fs.watch, statfs; stat has no bigint form. File handles are the
//     store's (at most 256 open at once, EMFILE past it; closed at the end
//     of the execution); their reads and writes count as fs calls and bytes.
//   - Intl is the runtime's (js/93_intl.js; the engine has none):
//     NumberFormat, DateTimeFormat, PluralRules, Collator and ListFormat,
//     with toLocaleString, toLocaleDateString, toLocaleTimeString and
//     localeCompare through them. Numbers for a documented set of locales,
//     dates in en-US and en-GB patterns in any IANA time zone (Go's
//     embedded database), plural rules and collation from
//     golang.org/x/text (docs/node-parity.md). Local time is UTC for every
//     execution (TZ in its environment is ignored).
//     No WebAssembly, workers, SharedArrayBuffer sharing.
//   - EventTarget, Blob, FormData, web streams other than ReadableStream
//     (no WritableStream, TransformStream, pipeTo), node:child_process,
//     node:http. node:stream is a smaller machine than Node's (see
//     docs/node-parity.md).
//   - Errors the engine throws have QuickJS's messages ("cannot read
//     property 'x' of null"), not V8's; {...'str'} gives {}. Fixed in the
//     runtime (js/91_parity.js): JSON.parse's messages, BigInt.asUintN,
//     Promise.any's message, stack overflow as a RangeError, Date's
//     toString. docs/node-parity.md lists every difference from Node.
//   - error.stack holds the engine's frames only; Node prefixes them with
//     "Name: message" (util.inspect and uncaught errors print both).
//   - Non-ASCII host names in URLs are refused (no IDNA), file: URLs have no
//     drive letters; util.inspect does not show proxies, colors or
//     getters' values.
//   - The built-in calls listed under "Stopping an execution" cannot be
//     interrupted inside: the execution ends, the engine runs on (stuck)
//     until the call returns. Ending them needs the engine in a process of
//     its own (the per-workspace worker), or the engine's loops to check
//     for interrupts (upstream QuickJS).
//   - Only 64-bit Linux is tested (package qjs also has the 32-bit value
//     form, vetted for 386, never run).
package jsvm
