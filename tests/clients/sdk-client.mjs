// tests/clients/sdk-client.mjs - a short MCP client on a real TypeScript SDK, for mcpspec to
// judge (issue 15: mcpspec plays the server). It does what most clients do when started:
// connect, list the tools, call the first one with no arguments, and exit; meanwhile it answers
// what a server may ask of a client (roots/list, sampling/createMessage, elicitation/create)
// with canned answers, declaring those capabilities first, as a real host would.
//
// usage: node sdk-client.mjs v1|v2 [--era auto|legacy] -- SERVER-COMMAND [ARGS...]
//        node sdk-client.mjs v1|v2 [--era auto|legacy] --url URL
//        node sdk-client.mjs v1 --sse-url URL
//   v1: @modelcontextprotocol/sdk 1.32.2; v2: @modelcontextprotocol/client 2.4.0 (npm alias
//   mcpspec-sdk-v2-client), both pinned in tests/servers/package.json and installed by
//   scripts/real-servers. --era (v2 only) is the SDK's versionNegotiation mode: "legacy" (its
//   default) initializes; "auto" asks server/discover first (2026-07-28; over stdio on a
//   short-lived sibling process started from the same command, so the server starts twice).
//   --sse-url (v1 only): 2024-11-05's HTTP+SSE transport, the SDK's SSEClientTransport.
// Exit: 0 when the conversation ended as planned, 1 when the SDK gave up (the error on
// stderr), 2 on a usage error. The SDK's own timeouts bound every wait; the whole run is
// bounded by MCPSPEC_CLIENT_DEADLINE_MS (default 20000).
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = process.env.MCPSPEC_NODE_MODULES ||
  path.join(here, "..", "..", ".cache", "servers", "node_modules");

function usage(why) {
  process.stderr.write(`sdk-client: ${why}\n` +
    "usage: node sdk-client.mjs v1|v2 [--era auto|legacy] (-- COMMAND [ARGS...] | --url URL)\n" +
    "       node sdk-client.mjs v1 --sse-url URL\n");
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { sdk: argv[0], era: "legacy", url: null, sse: false, command: null };
  if (opts.sdk !== "v1" && opts.sdk !== "v2") usage("the first argument is v1 or v2");
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--era") opts.era = argv[++i];
    else if (a === "--url") opts.url = argv[++i];
    else if (a === "--sse-url") { opts.url = argv[++i]; opts.sse = true; }
    else if (a === "--") { opts.command = argv.slice(i + 1); break; }
    else usage(`unknown argument ${a}`);
  }
  if (!["auto", "legacy"].includes(opts.era)) usage("--era is auto or legacy");
  if (opts.sse && opts.sdk !== "v1") usage("--sse-url is for v1 (SSEClientTransport)");
  if (!opts.url === !(opts.command && opts.command.length)) usage("give a server command or --url");
  return opts;
}

// The SDK's modules, from the project's own cache (never a global install).
async function load(sdk) {
  const require = createRequire(path.join(modules, "noop.js"));
  const from = (spec) => import(pathToFileURL(require.resolve(spec)).href);
  if (sdk === "v1") {
    const [client, stdio, http, sse, types] = await Promise.all([
      from("@modelcontextprotocol/sdk/client/index.js"),
      from("@modelcontextprotocol/sdk/client/stdio.js"),
      from("@modelcontextprotocol/sdk/client/streamableHttp.js"),
      from("@modelcontextprotocol/sdk/client/sse.js"),
      from("@modelcontextprotocol/sdk/types.js"),
    ]);
    const handle = (c, method, fn) => c.setRequestHandler({
      "roots/list": types.ListRootsRequestSchema,
      "sampling/createMessage": types.CreateMessageRequestSchema,
      "elicitation/create": types.ElicitRequestSchema,
    }[method], fn);
    return { Client: client.Client, Stdio: stdio.StdioClientTransport,
             Http: http.StreamableHTTPClientTransport, Sse: sse.SSEClientTransport, handle };
  }
  const [client, stdio] = await Promise.all([
    from("mcpspec-sdk-v2-client"), from("mcpspec-sdk-v2-client/stdio")]);
  return { Client: client.Client, Stdio: stdio.StdioClientTransport,
           Http: client.StreamableHTTPClientTransport,
           handle: (c, method, fn) => c.setRequestHandler(method, fn) };
}

const CANNED = {
  "roots/list": () => ({ roots: [{ uri: "file:///tmp/mcpspec-client-root", name: "scratch" }] }),
  "sampling/createMessage": () => ({
    model: "mcpspec-canned", role: "assistant", stopReason: "endTurn",
    content: { type: "text", text: "a canned answer from the client under test" } }),
  "elicitation/create": () => ({ action: "decline" }),
};

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const sdk = await load(opts.sdk);
  const options = { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } } };
  if (opts.sdk === "v2") options.versionNegotiation = { mode: opts.era };
  const client = new sdk.Client({ name: `mcpspec-test-client-${opts.sdk}`, version: "1.0.0" }, options);
  for (const [method, answer] of Object.entries(CANNED)) sdk.handle(client, method, answer);
  const transport = opts.sse ? new sdk.Sse(new URL(opts.url))
    : opts.url
    ? new sdk.Http(new URL(opts.url))
    : new sdk.Stdio({ command: opts.command[0], args: opts.command.slice(1), stderr: "inherit" });
  await client.connect(transport);
  const { tools } = await client.listTools();
  if (tools.length > 0) await client.callTool({ name: tools[0].name, arguments: {} });
  await client.close();
}

const deadline = Number(process.env.MCPSPEC_CLIENT_DEADLINE_MS || 20000);
setTimeout(() => { process.stderr.write(`sdk-client: not done after ${deadline} ms\n`); process.exit(1); },
           deadline).unref();
main().then(() => process.exit(0), (e) => {
  process.stderr.write(`sdk-client: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
