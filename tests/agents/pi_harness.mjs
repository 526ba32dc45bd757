// A stand-in for Pi's extension API, to run review's Pi extension under node without Pi.
//
//   node pi_harness.mjs EXTENSION CWD
//
// It loads EXTENSION as Pi does (its default export, called with the API), then reads commands
// from stdin, one JSON object a line: {"fire": EVENT} runs the extension's handlers of a Pi event
// (agent_start makes the stand-in busy, agent_end idle again) and answers {"fired": EVENT}. Every
// message the extension sends Pi is written to stdout as {"sent": TEXT, "options": OPTIONS,
// "idle": WAS_PI_IDLE}.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

const [extension, cwd] = process.argv.slice(2);
const handlers = new Map();
let idle = true;

function write(object) {
  process.stdout.write(JSON.stringify(object) + "\n");
}

const ctx = {
  cwd,
  hasUI: true,
  ui: { notify: (message, type) => write({ notified: message, type }) },
  sessionManager: { getSessionId: () => "pi-session-7f3a" },
  isIdle: () => idle,
};

const pi = {
  on(event, handler) {
    handlers.set(event, [...(handlers.get(event) ?? []), handler]);
  },
  sendUserMessage(content, options) {
    if (!idle && !options?.deliverAs) throw new Error("Agent is already processing. Specify streamingBehavior");
    write({ sent: content, options: options ?? null, idle });
    return Promise.resolve();
  },
};

// The file as written, not a copy: node takes it as an ES module from a data: URL, as jiti does.
const source = readFileSync(extension, "utf8");
const module = await import("data:text/javascript;base64," + Buffer.from(source).toString("base64"));
await module.default(pi);
write({ loaded: [...handlers.keys()].sort() });

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const { fire } = JSON.parse(line);
  if (fire === "agent_start") idle = false;
  for (const handler of handlers.get(fire) ?? []) await handler({ type: fire }, ctx);
  if (fire === "agent_end") idle = true;
  write({ fired: fire });
}
// Pi is leaving: let the extension's last calls to review finish.
for (const handler of handlers.get("session_shutdown") ?? []) await handler({ type: "session_shutdown" }, ctx);
write({ fired: "session_shutdown" });
