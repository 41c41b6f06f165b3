// The client transports of the end-to-end test and the benchmark: desk mcp
// over stdio (DESK_BIN), or desk serve's /mcp/{ws} over streamable HTTP.
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const { DESK_BIN, DESK_URL, DESK_TOKEN, DESK_WS } = process.env;

export function transport(mode, token = DESK_TOKEN) {
  if (mode === "stdio") {
    return new StdioClientTransport({
      command: DESK_BIN,
      args: ["mcp", "--workspace", DESK_WS],
      env: { PATH: process.env.PATH, DESK_URL, DESK_TOKEN: token, DESK_CONFIG: "/nonexistent/desk-config.json" },
      stderr: "inherit",
    });
  }
  return new StreamableHTTPClientTransport(new URL(`${DESK_URL}/mcp/${DESK_WS}`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
}

