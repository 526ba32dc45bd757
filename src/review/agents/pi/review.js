// review's extension for Pi: put here by `review install pi`, which rewrites it; `review uninstall pi` removes it.
//
// Pi has no hooks, so this tells review what Pi does, as Claude Code's and Codex's hooks do: it
// runs `review hook pi` on Pi's events (the overview shows the agent working or idle), and when a
// review is sent to the worktree Pi works in, it hands Pi review's one-line pointer to the review
// as a user message: at once when Pi is idle (it starts a turn), as a follow-up when Pi is busy.
// review decides what to point to and records each pointer, so news is pointed to at most three
// times; it is delivered only when Pi reads it with `review pending`. Plain JavaScript, which Pi
// loads as it is and node can check without a TypeScript compiler.

import { spawn } from "node:child_process";
import { unwatchFile, watchFile } from "node:fs";
import { join } from "node:path";

// How this machine runs review; `review install pi` writes the command it was run as.
const REVIEW = ["review"];

// How often Pi's review file is looked at: it is replaced whole, so its time is polled.
const POLL_MS = 1000;

export default function (pi) {
  let context; // the latest ExtensionContext Pi handed us: its cwd, session and isIdle()
  let watching; // the review file watched, once the session started
  let pointed = false; // the running turn was started (or followed) by our pointer
  let ending = false; // the run ended and Pi is not idle yet: a follow-up would wait for the next prompt
  let queue = Promise.resolve(); // calls to review, one at a time, in the order of the events

  // Run `review hook pi` with the event on stdin; its answer, or {} whatever goes wrong:
  // the extension must never break Pi.
  function tell(name, extra = {}) {
    const ctx = context;
    if (!ctx) return Promise.resolve({});
    const event = { hook_event_name: name, cwd: ctx.cwd, session_id: sessionOf(ctx), ...extra };
    queue = queue.then(() => run(event, ctx.cwd), () => run(event, ctx.cwd));
    return queue;
  }

  function run(event, cwd) {
    return new Promise((resolve) => {
      let out = "";
      let child;
      try {
        child = spawn(REVIEW[0], [...REVIEW.slice(1), "hook", "pi"], { cwd, stdio: ["pipe", "pipe", "ignore"] });
      } catch {
        resolve({});
        return;
      }
      child.on("error", () => resolve({})); // review is not there: nothing to say
      child.stdout.on("data", (chunk) => (out += chunk));
      child.on("close", () => {
        try {
          resolve(out.trim() ? JSON.parse(out) : {});
        } catch {
          resolve({});
        }
      });
      child.stdin.on("error", () => {});
      child.stdin.end(JSON.stringify(event));
    });
  }

  // Hand Pi the pointer: a user message that starts a turn when Pi is idle, a follow-up to the
  // turn it is on otherwise; once the run has ended, wait until Pi is idle rather than queue a
  // follow-up that no turn would pick up.
  function hand(answer) {
    const text = answer && typeof answer.pointer === "string" ? answer.pointer : "";
    const ctx = context;
    if (!text || !ctx) return;
    if (!ctx.isIdle() && ending) {
      setTimeout(() => hand(answer), 50);
      return;
    }
    pointed = true;
    try {
      const sent = ctx.isIdle() ? pi.sendUserMessage(text) : pi.sendUserMessage(text, { deliverAs: "followUp" });
      Promise.resolve(sent).catch((error) => say(`review: the pointer to the review did not reach Pi (${error})`));
    } catch (error) {
      say(`review: the pointer to the review did not reach Pi (${error})`);
    }
  }

  function say(line) {
    if (context && context.hasUI) context.ui.notify(line, "warning");
  }

  function watch(cwd) {
    const file = join(cwd, ".review", "review.json");
    if (watching === file) return;
    stopWatching();
    watching = file;
    // Not persistent: watching never keeps Pi from exiting.
    watchFile(file, { interval: POLL_MS, persistent: false }, (now, before) => {
      if (now.mtimeMs !== before.mtimeMs || now.size !== before.size) tell("review_changed").then(hand);
    });
  }

  function stopWatching() {
    if (watching) unwatchFile(watching);
    watching = undefined;
  }

  pi.on("session_start", async (_event, ctx) => {
    context = ctx;
    watch(ctx.cwd);
    // A review sent while Pi was not running reaches it at the start of its session.
    tell("session_start").then(() => tell("review_changed")).then(hand);
  });

  pi.on("agent_start", async (_event, ctx) => {
    context = ctx;
    ending = false;
    tell("agent_start");
  });

  pi.on("agent_end", async (_event, ctx) => {
    context = ctx;
    ending = true;
    const ours = pointed;
    pointed = false;
    // Not awaited: Pi is idle only once every agent_end handler returned.
    tell("agent_end", { pointed: ours }).then(hand);
  });

  pi.on("session_shutdown", async (_event, ctx) => {
    context = ctx;
    stopWatching();
    await tell("session_shutdown");
  });
}

function sessionOf(ctx) {
  try {
    return ctx.sessionManager.getSessionId();
  } catch {
    return undefined;
  }
}
