// sdk-v1-client.cjs - a short MCP client on the TypeScript SDK v1
// (@modelcontextprotocol/sdk, pinned in tests/servers/package.json), for
// `mcpspec run --client "node tests/clients/sdk-v1-client.cjs {server}"`.
// It does what most clients do when started: connect over stdio to the
// server command it is given, list the tools, call the first, and close.
// It declares roots, sampling and elicitation and answers them with canned
// values (no person or model here). CommonJS, so NODE_PATH finds the SDK.
"use strict";
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const types = require("@modelcontextprotocol/sdk/types.js");

async function main(argv) {
    if (argv.length < 1) {
        console.error("usage: node sdk-v1-client.cjs SERVER [ARGS...]");
        process.exit(2);
    }
    const client = new Client(
        { name: "mcpspec-sdk-v1-client", version: "1.0.0" },
        { capabilities: { roots: { listChanged: false }, sampling: {}, elicitation: {} } });
    client.setRequestHandler(types.ListRootsRequestSchema, async () => ({
        roots: [{ uri: "file:///tmp/sdk-v1-client", name: "project" }],
    }));
    client.setRequestHandler(types.CreateMessageRequestSchema, async () => ({
        role: "assistant",
        content: { type: "text", text: "Hello." },
        model: "canned",
        stopReason: "endTurn",
    }));
    client.setRequestHandler(types.ElicitRequestSchema, async () => ({ action: "decline" }));
    const transport = new StdioClientTransport({ command: argv[0], args: argv.slice(1) });
    await client.connect(transport);
    const { tools } = await client.listTools();
    if (tools.length)
        await client.callTool({ name: tools[0].name, arguments: { text: "hello" } });
    await client.close();
}

main(process.argv.slice(2)).catch((e) => {
    console.error("sdk-v1-client: " + (e && e.message ? e.message : e));
    process.exit(1);
});
