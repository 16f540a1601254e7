// tests/servers/loopback-only.cjs - preloaded into a real MCP server under
// test (node --require tests/servers/loopback-only.cjs SERVER.js ...) so that
// it listens on 127.0.0.1 only. server-everything's streamableHttp and sse
// modes call app.listen(PORT) with no host, which Node binds to every
// interface, and offer no flag or variable to change that; our tests must not
// open a port to the network. A listen that names a host, a path or a handle
// is left alone; one that names none, or the wildcard, gets the loopback one.
"use strict";
const net = require("node:net");

const WILDCARDS = new Set([undefined, null, "", "0.0.0.0", "::"]);
const listen = net.Server.prototype.listen;

function isPort(v) {
  return typeof v === "number" || (typeof v === "string" && /^[0-9]+$/.test(v));
}

net.Server.prototype.listen = function (...args) {
  const first = args[0];
  if (first !== null && typeof first === "object" && !Array.isArray(first)) {
    if (first.path === undefined && first.handle === undefined && first.fd === undefined &&
        WILDCARDS.has(first.host)) {
      args[0] = { ...first, host: "127.0.0.1" };
    }
  } else if (isPort(first) || first === undefined || typeof first === "function") {
    // listen(), listen(cb), listen(port[, host][, backlog][, cb])
    if (typeof first === "function" || first === undefined) {
      args.unshift(0);
    }
    if (typeof args[1] !== "string" || WILDCARDS.has(args[1])) {
      if (typeof args[1] === "string") {
        args[1] = "127.0.0.1";
      } else {
        args.splice(1, 0, "127.0.0.1");
      }
    }
  }
  return listen.apply(this, args);
};
