// The scripted coding session of desk's MCP end-to-end test, driven by the
// official TypeScript MCP client. Usage:
//
//   node session.mjs stdio|http
//
// Environment: DESK_BIN (the desk binary, for stdio), DESK_URL, DESK_TOKEN,
// DESK_WS (the workspace), DESK_BACKEND (sandbox: npm test; shell: a shell
// test). Prints one JSON object with what it saw; exits 1 on the first failed
// check (the message on stderr).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { transport } from "./transport.mjs";

const mode = process.argv[2];
const { DESK_WS, DESK_BACKEND = "sandbox" } = process.env;

function check(cond, what, detail) {
  if (!cond) {
    console.error(`FAIL ${mode}: ${what}${detail === undefined ? "" : "\n" + (typeof detail === "string" ? detail : JSON.stringify(detail, null, 2))}`);
    process.exit(1);
  }
}

const text = (res) => res.content.filter((c) => c.type === "text").map((c) => c.text).join("");

async function main() {
  const seen = { mode, steps: [] };
  const client = new Client({ name: "desk-e2e", version: "1.0.0" });
  client.onerror = () => {};
  await client.connect(transport(mode));
  // What desk sends, as it arrives: the progress notifications received
  // while a call is pending, before its response. The SDK's onprogress
  // cannot say it alone: it runs a notification's handler a microtask
  // later but a response's at once, so a notification read in the same
  // chunk as its response finds its handler gone (typescript-sdk issue
  // 2580) and is dropped, which happened under load.
  const wire = { pending: false, progress: 0 };
  const onmessage = client.transport.onmessage;
  client.transport.onmessage = (msg, extra) => {
    if (wire.pending) {
      if (msg.method === "notifications/progress") wire.progress++;
      else if (msg.id !== undefined && (msg.result !== undefined || msg.error !== undefined)) wire.pending = false;
    }
    onmessage(msg, extra);
  };
  const call = async (name, args, opts) => {
    const res = await client.callTool({ name, arguments: args }, undefined, opts);
    seen.steps.push({ tool: name, isError: !!res.isError, text: text(res).slice(0, 300) });
    return res;
  };

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort().join(",");
  check(names === "delete,edit,exec,find,grep,ls,publish,read,write", "tools/list", names);
  check(tools.every((t) => t.inputSchema && t.outputSchema && t.description), "every tool has schemas and a description");

  // 1. Write a small project with a bug.
  const node = DESK_BACKEND === "sandbox";
  const files = node
    ? {
        "package.json": JSON.stringify({ name: "calc", version: "1.0.0", scripts: { test: "node test.js" } }, null, 2) + "\n",
        "src/math.js": "// math helpers\nfunction add(a, b) {\n  return a - b;\n}\n\nmodule.exports = { add };\n",
        "test.js": "const assert = require('node:assert');\nconst { add } = require('./src/math.js');\nassert.strictEqual(add(2, 3), 5);\nconsole.log('all tests passed');\n",
      }
    : {
        "src/math.sh": "# math helpers\nadd() {\n  echo $(( $1 - $2 ))\n}\n",
        "test.sh": ". ./src/math.sh\nif [ \"$(add 2 3)\" = 5 ]; then echo 'all tests passed'; else echo \"expected 5, got $(add 2 3)\" >&2; exit 1; fi\n",
      };
  for (const [path, content] of Object.entries(files)) {
    const res = await call("write", { path, content });
    check(!res.isError && res.structuredContent?.created === true, `write ${path}`, res);
  }
  const src = node ? "src/math.js" : "src/math.sh";
  const testCmd = node ? "npm test" : ". ./test.sh";

  // 2. Search it.
  let res = await call("grep", { query: node ? "function add" : "add()", include: "src/**" });
  check(text(res).includes(`/workspace/${src}:2:`), "grep finds the function", text(res));

  // 3. Run the tests: they fail. Progress arrives while they run.
  let progress = 0;
  Object.assign(wire, { pending: true, progress: 0 });
  res = await call("exec", { command: testCmd, backend: DESK_BACKEND, timeout: 120 }, { onprogress: () => progress++ });
  check(!res.isError && res.structuredContent.exit_code !== 0, "the tests fail first", res);
  seen.firstRun = { exit_code: res.structuredContent.exit_code, backend: res.structuredContent.backend, progress, wireProgress: wire.progress };
  check(wire.progress > 0, "exec reported progress before its result");
  check(progress <= wire.progress, "the client saw no progress desk did not send", seen.firstRun);

  // 4. Read, then fix the function with an edit guarded by the revision.
  res = await call("read", { path: src });
  check(text(res).startsWith("1\t"), "read numbers lines", text(res));
  const rev = res.structuredContent.revision;
  res = await call("edit", { path: src, expected_revision: rev, edits: [{ old: node ? "return a - b;" : "$1 - $2", new: node ? "return a + b;" : "$1 + $2" }] });
  check(!res.isError && text(res).includes("+"), "edit applies", res);
  res = await call("edit", { path: src, expected_revision: rev, edits: [{ old: "math helpers", new: "maths" }] });
  check(res.isError && text(res).startsWith("conflict:"), "a stale revision is a conflict", res);

  // 5. Run the tests again: they pass.
  res = await call("exec", { command: testCmd, backend: DESK_BACKEND, timeout: 120 });
  check(!res.isError && res.structuredContent.exit_code === 0 && text(res).includes("all tests passed"), "the tests pass after the fix", res);
  seen.secondRun = { exit_code: res.structuredContent.exit_code };

  // 6. List the changes: the files, and what an execution changed.
  res = await call("find", { pattern: "**" });
  const listed = res.structuredContent.matches.filter((m) => m.type === "file").map((m) => m.path);
  for (const p of Object.keys(files)) check(listed.includes(`/workspace/${p}`), `find lists ${p}`, listed);
  res = await call("exec", { command: "echo built > build.txt", backend: DESK_BACKEND });
  check(JSON.stringify(res.structuredContent.changes?.created) === JSON.stringify(["/workspace/build.txt"]), "exec reports the files it created", res.structuredContent);
  seen.files = listed;

  // 7. Files are resources too.
  const { resources } = await client.listResources();
  check(resources.some((r) => r.uri === `desk://${DESK_WS}/${src}`), "resources/list", resources.map((r) => r.uri));
  const rr = await client.readResource({ uri: `desk://${DESK_WS}/${src}` });
  check(rr.contents[0].text.includes("+"), "resources/read", rr);

  // 8. Cancelling a call kills its execution.
  const ac = new AbortController();
  const pending = client.callTool({ name: "exec", arguments: { command: "echo waiting; sleep 60", backend: "shell" } }, undefined, { signal: ac.signal });
  setTimeout(() => ac.abort(), 500);
  let aborted = false;
  try {
    await pending;
  } catch {
    aborted = true;
  }
  check(aborted, "an aborted call rejects");
  // Give the notifications/cancelled its round trip (the Go test checks the
  // execution was killed), then end the session as a client would.
  await new Promise((r) => setTimeout(r, 300));
  if (mode === "http") await client.transport.terminateSession();
  await client.close();

  // 9. Authentication failures (HTTP).
  if (mode === "http") {
    for (const bad of ["", "desk_0000000000000000_notasecret", "garbage"]) {
      const c = new Client({ name: "desk-e2e-bad", version: "1.0.0" });
      let failed = false;
      try {
        await c.connect(transport("http", bad));
      } catch (e) {
        failed = /401|nauthori/.test(String(e));
      }
      check(failed, `a bad token (${JSON.stringify(bad)}) is refused with 401`);
    }
  }
  seen.ok = true;
  console.log(JSON.stringify(seen));
}

main().catch((e) => {
  console.error(`FAIL ${mode}: ${e?.stack || e}`);
  process.exit(1);
});
