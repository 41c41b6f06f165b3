// Tool-call latency over stdio and streamable HTTP with the official
// TypeScript MCP client: read, grep and exec of echo (shell backend), N calls
// each after a warm-up. Usage: node bench.mjs stdio|http [N]. Prints JSON:
// {"mode", "n", "read": {"p50_ms", "p99_ms"}, ...}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { transport } from "./transport.mjs";

const mode = process.argv[2];
const n = Number(process.argv[3] || 1000);
const client = new Client({ name: "desk-bench", version: "1.0.0" });
await client.connect(transport(mode));
await client.callTool({ name: "write", arguments: { path: "bench/a.txt", content: "alpha\nbeta\ngamma\n".repeat(20) } });
await client.callTool({ name: "write", arguments: { path: "bench/b.txt", content: "one\ntwo\n" } });

const cases = {
  read: { name: "read", arguments: { path: "bench/a.txt" } },
  grep: { name: "grep", arguments: { query: "gamma", path: "bench", limit: 5 } },
  exec_echo: { name: "exec", arguments: { command: "echo hi", backend: "shell" } },
};
const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const out = { mode, n };
for (const [label, req] of Object.entries(cases)) {
  for (let i = 0; i < 50; i++) await client.callTool(req);
  const ms = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await client.callTool(req);
    ms.push(performance.now() - t0);
    if (res.isError) throw new Error(`${label}: ${JSON.stringify(res.content)}`);
  }
  ms.sort((a, b) => a - b);
  out[label] = { p50_ms: +pct(ms, 50).toFixed(3), p99_ms: +pct(ms, 99).toFixed(3), mean_ms: +(ms.reduce((a, b) => a + b, 0) / n).toFixed(3) };
}
await client.close();
console.log(JSON.stringify(out));
