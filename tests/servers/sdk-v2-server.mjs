// tests/servers/sdk-v2-server.mjs - a small MCP server of our own, written on
// the TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0, pinned in
// package.json under the alias mcpspec-sdk-v2-server so that it cannot change
// which SDK the other pinned servers resolve). No public npm server spoke
// 2026-07-28 when this was written; this one is what the SDK gives a server
// author who follows its documentation, dual-era from one factory: the
// 2026-07-28 revision (server/discover, per-request _meta, multi round-trip
// input, subscriptions/listen) beside the 2025 handshake.
//
// usage: node sdk-v2-server.mjs INSTALL_DIR stdio
//        PORT=N node sdk-v2-server.mjs INSTALL_DIR http     (POST/GET/DELETE /mcp on 127.0.0.1)
// INSTALL_DIR is where scripts/real-servers installed the pinned packages
// (.cache/servers); the SDK is loaded from there.
import { readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [installDir, mode] = process.argv.slice(2);
if (!installDir || (mode !== "stdio" && mode !== "http")) {
  process.stderr.write("usage: sdk-v2-server.mjs INSTALL_DIR stdio|http\n");
  process.exit(2);
}

// Resolve the package's own export map, as a bare import would, rather than
// guessing its dist layout.
async function importExport(subpath) {
  const root = path.join(installDir, "node_modules", "mcpspec-sdk-v2-server");
  const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  const entry = pkg.exports[subpath].import;
  const file = typeof entry === "string" ? entry : entry.default;
  return import(pathToFileURL(path.join(root, file)).href);
}

const sdk = await importExport(".");
const { McpServer, ResourceTemplate, acceptedContent, fromJsonSchema, inputRequired, inputResponse } = sdk;

// Shared by every instance the factory makes (one per HTTP request, one per
// stdio connection): whether the optional tool is on the list.
const state = { extraTool: false };
let notifyHttp = null;

const NOTES = [
  { id: "1", text: "first note" },
  { id: "2", text: "second note" },
  { id: "3", text: "third note" },
];

const CONFIRM = {
  type: "object",
  properties: { confirm: { type: "boolean", title: "Confirm" } },
  required: ["confirm"],
};

const text = (s) => ({ content: [{ type: "text", text: s }] });

function registerTools(server, era) {
  server.registerTool("echo", {
    description: "Echo a message back, also as structured content",
    inputSchema: fromJsonSchema({
      type: "object",
      properties: { message: { type: "string" } },
      required: ["message"],
    }),
    outputSchema: fromJsonSchema({
      type: "object",
      properties: { echo: { type: "string" } },
      required: ["echo"],
    }),
    annotations: { readOnlyHint: true },
  }, async ({ message }) => {
    const structured = { echo: message };
    return { ...text(JSON.stringify(structured)), structuredContent: structured };
  });

  server.registerTool("count-slowly", {
    description: "Count to steps, one step every duration/steps seconds, with progress",
    inputSchema: fromJsonSchema({
      type: "object",
      properties: { duration: { type: "number" }, steps: { type: "integer" } },
      required: ["duration", "steps"],
    }),
  }, async ({ duration, steps }, ctx) => {
    const token = ctx.mcpReq._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, (duration * 1000) / steps);
        ctx.mcpReq.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(new Error("cancelled"));
        }, { once: true });
      });
      if (token !== undefined) {
        await ctx.mcpReq.notify({
          method: "notifications/progress",
          params: { progressToken: token, progress: i, total: steps },
        });
      }
    }
    return text(`counted to ${steps}`);
  });

  server.registerTool("always-fails", {
    description: "A tool whose work fails: the failure is a tool result",
    inputSchema: fromJsonSchema({ type: "object", properties: {} }),
  }, async () => {
    throw new Error("the backend of always-fails is down");
  });

  // The multi round-trip tool: on 2026-07-28 it returns input_required with
  // a form elicitation and finishes on the retry that carries the answer; on
  // the 2025 eras the SDK's shim sends elicitation/create itself.
  server.registerTool("confirm-action", {
    description: "Ask the user to confirm an action, then report the answer",
    inputSchema: fromJsonSchema({
      type: "object",
      properties: { action: { type: "string" } },
      required: ["action"],
    }),
  }, async ({ action }, ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, "confirm");
    if (answer.kind === "missing") {
      return inputRequired({
        inputRequests: {
          confirm: inputRequired.elicit({ message: `Go ahead with ${action}?`, requestedSchema: CONFIRM }),
        },
        requestState: JSON.stringify({ action }),
      });
    }
    if (answer.kind !== "elicit") return { ...text("unexpected answer"), isError: true };
    if (answer.action !== "accept") return text(`${action}: ${answer.action}`);
    // The SDK hands the content over unchecked; validating it is ours to do.
    const content = acceptedContent(ctx.mcpReq.inputResponses, "confirm", fromJsonSchema(CONFIRM));
    if (content === undefined) return { ...text("the answer does not match the form"), isError: true };
    return text(`${action}: ${content.confirm ? "confirmed" : "not confirmed"}`);
  });

  server.registerTool("ask-model", {
    description: "Ask the client's model a question (sampling) and return its answer",
    inputSchema: fromJsonSchema({
      type: "object",
      properties: { prompt: { type: "string" }, maxTokens: { type: "integer" } },
      required: ["prompt"],
    }),
  }, async ({ prompt, maxTokens }, ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, "reply");
    if (answer.kind === "sampling") {
      const c = answer.result.content;
      return text(Array.isArray(c) ? JSON.stringify(c) : c.type === "text" ? c.text : c.type);
    }
    return inputRequired({
      inputRequests: {
        reply: inputRequired.createMessage({
          messages: [{ role: "user", content: { type: "text", text: prompt } }],
          maxTokens: maxTokens ?? 100,
        }),
      },
    });
  });

  const extra = server.registerTool("extra", {
    description: "Shown only while toggle-extra has switched it on",
    inputSchema: fromJsonSchema({ type: "object", properties: {} }),
  }, async () => text("extra"));
  if (!state.extraTool) extra.disable();

  server.registerTool("toggle-extra", {
    description: "Add the tool named extra to the list, or take it off again",
    inputSchema: fromJsonSchema({ type: "object", properties: {} }),
  }, async () => {
    state.extraTool = !state.extraTool;
    if (mode === "http") {
      notifyHttp?.toolsChanged();
    } else if (state.extraTool) {
      extra.enable(); // sends notifications/tools/list_changed on this connection
    } else {
      extra.disable();
    }
    return text(state.extraTool ? "extra is on" : "extra is off");
  });
  void era;
}

function registerResources(server) {
  server.registerResource("readme", "notes://readme", {
    title: "Read me",
    description: "What this server is",
    mimeType: "text/plain",
  }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: "text/plain", text: "A test server for mcpspec." }],
  }));

  server.registerResource("settings", "notes://settings.json", {
    description: "Settings as JSON",
    mimeType: "application/json",
    cacheHint: { ttlMs: 60000, cacheScope: "public" },
  }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify({ theme: "dark" }) }],
  }));

  server.registerResource("note", new ResourceTemplate("notes://items/{id}", {
    list: async () => ({
      resources: NOTES.map((n) => ({ uri: `notes://items/${n.id}`, name: `note ${n.id}`, mimeType: "text/plain" })),
    }),
    complete: { id: async (value) => NOTES.map((n) => n.id).filter((id) => id.startsWith(value)) },
  }), { description: "One note by its id", mimeType: "text/plain" }, async (uri, { id }) => {
    const note = NOTES.find((n) => n.id === id);
    if (!note) throw new sdk.ResourceNotFoundError(uri.href);
    return { contents: [{ uri: uri.href, mimeType: "text/plain", text: note.text }] };
  });
}

function registerPrompts(server) {
  server.registerPrompt("greeting", {
    description: "Greet someone by name",
    argsSchema: fromJsonSchema({
      type: "object",
      properties: { name: { type: "string", description: "who to greet" } },
      required: ["name"],
    }),
  }, async ({ name }) => ({
    messages: [{ role: "user", content: { type: "text", text: `Say hello to ${name}.` } }],
  }));

  server.registerPrompt("summary", { description: "Summarise the notes" }, async () => ({
    messages: [{
      role: "user",
      content: { type: "resource", resource: { uri: "notes://readme", mimeType: "text/plain", text: "A test server for mcpspec." } },
    }],
  }));
}

function factory(ctx) {
  const server = new McpServer({ name: "mcpspec-sdk-v2-server", version: "1.0.0" }, {
    capabilities: {
      tools: { listChanged: true },
      resources: { listChanged: true },
      prompts: { listChanged: true },
      logging: {},
    },
    // The SDK's 2025-era shim waits 10 minutes for an answer by default.
    inputRequired: { roundTimeoutMs: 20000 },
    instructions: "A test server for mcpspec, written on the MCP TypeScript SDK v2.",
  });
  registerTools(server, ctx?.era);
  registerResources(server);
  registerPrompts(server);
  return server;
}

function onerror(error) {
  if (process.env.SDK_V2_DEBUG) process.stderr.write(`sdk-v2-server: ${error?.stack ?? error}\n`);
}

if (mode === "stdio") {
  const { serveStdio } = await importExport("./stdio");
  serveStdio(factory, { onerror });
} else {
  serveHttp();
}

// Streamable HTTP on node:http, adapting node's request to the web-standard
// Request that createMcpHandler takes (the SDK's own adapter package needs a
// second copy of the SDK as its peer). Host and Origin checks first, as the
// SDK's documentation asks of a bare mount.
function serveHttp() {
  const handler = sdk.createMcpHandler(factory, { onerror });
  notifyHttp = handler.notify;
  const limit = sdk.DEFAULT_MAX_REQUEST_BODY_SIZE;
  const server = http.createServer(async (req, res) => {
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    try {
      const url = new URL(req.url, `http://${req.headers.host ?? "127.0.0.1"}`);
      if (url.pathname !== "/mcp") {
        res.writeHead(404).end();
        return;
      }
      const chunks = [];
      let size = 0;
      for await (const chunk of req) {
        size += chunk.length;
        if (size > limit + 1) break;
        chunks.push(chunk);
      }
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) {
        for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
      }
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const request = new Request(url, {
        method: req.method,
        headers,
        body: hasBody ? Buffer.concat(chunks) : undefined,
        signal: abort.signal,
      });
      const rejected = sdk.hostHeaderValidationResponse(request, sdk.localhostAllowedHostnames()) ??
        sdk.originValidationResponse(request, sdk.localhostAllowedOrigins());
      const response = rejected ?? await handler.fetch(request);
      res.writeHead(response.status, [...response.headers].flat());
      if (response.body) {
        for await (const chunk of response.body) {
          if (abort.signal.aborted) break;
          res.write(chunk);
        }
      }
      res.end();
    } catch (error) {
      onerror(error);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  server.listen(Number(process.env.PORT ?? 3000), "127.0.0.1");
  const stop = () => {
    handler.close().finally(() => process.exit(0));
    server.close();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
