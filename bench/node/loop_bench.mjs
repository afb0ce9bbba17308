// The loop-bench contract (docs/performance.md#agent-loop), Node side: the same workloads as
// bench/loop_bench.py, run through Pi 0.80.2's own runAgentLoop / Agent. One measured run
// per process; the JSON result is the last line of stdout; exit 1 on a count mismatch.
// Install once: `npm install --prefix bench/node` (outside CI; see docs/performance.md).
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { Agent, runAgentLoop } from "@earendil-works/pi-agent-core";
import { Type, createAssistantMessageEventStream } from "@earendil-works/pi-ai";

const KEYS = ["tool_turns", "deltas_per_turn", "tool_calls_per_turn", "tool_sleep_ms", "tool_result_bytes", "serialize_context"];
const ROWS = {
  stream: [0, 20000, 0, 0, 0, false],
  turns: [500, 50, 1, 0, 0, false],
  parallel: [50, 50, 8, 5, 0, false],
  history: [200, 50, 1, 0, 20480, false],
  history_json: [200, 50, 1, 0, 20480, true],
};
const OVERRIDES = { turns: "tool_turns", deltas: "deltas_per_turn", tools: "tool_calls_per_turn", "sleep-ms": "tool_sleep_ms", "result-bytes": "tool_result_bytes" };
const PATTERN = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/";

function parseArgs(argv) {
  const args = { workload: "stream", api: "loop", producer: "macro", warmup: 0, overrides: {} };
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i].replace(/^--/, "");
    const value = argv[i + 1];
    if (flag === "workload") args.workload = value;
    else if (flag === "api") args.api = value;
    else if (flag === "producer") args.producer = value;
    else if (flag === "warmup") args.warmup = Number(value);
    else if (flag in OVERRIDES) args.overrides[OVERRIDES[flag]] = Number(value);
    else throw new Error(`unknown flag --${flag}`);
  }
  if (!(args.workload in ROWS)) throw new Error(`unknown workload ${args.workload}`);
  const params = Object.fromEntries(KEYS.map((k, i) => [k, ROWS[args.workload][i]]));
  Object.assign(params, args.overrides);
  return { args, params };
}

const rssMb = () => process.memoryUsage.rss() / 1048576;
const setImmediateP = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function workload(params, producer) {
  const model = {
    id: "bench-model", name: "Bench Model", api: "bench", provider: "bench", baseUrl: "",
    reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 10000000, maxTokens: 100000,
  };
  const sleeps = new Map();
  const tool = {
    name: "echo",
    label: "Echo",
    description: "Echo the input text. If size is given, repeat text+newline and cut to exactly size characters.",
    parameters: Type.Object({
      text: Type.String({ description: "Text to echo" }),
      size: Type.Optional(Type.Integer({ description: "Exact output length in characters" })),
    }),
    async execute(id, args) {
      work.toolCalls++;
      if (params.tool_sleep_ms > 0) {
        const turn = Number(id.split("_")[1]);
        const start = performance.now();
        await sleep(params.tool_sleep_ms);
        const end = performance.now();
        const span = sleeps.get(turn);
        if (span === undefined) sleeps.set(turn, [start, end]);
        else { span[0] = Math.min(span[0], start); span[1] = Math.max(span[1], end); }
      }
      let text = args.text;
      if (args.size !== undefined) {
        const unit = text + "\n";
        text = unit.repeat(Math.floor(args.size / unit.length) + 1).slice(0, args.size);
      }
      return { content: [{ type: "text", text }], details: {} };
    },
  };
  const work = { model, tool, sleeps, llmCalls: 0, toolCalls: 0, maxBacklog: 0, serializedChars: 0, argChunks: [] };

  function* events(turn, output) {
    yield { type: "start", partial: output };
    const deltas = params.deltas_per_turn;
    if (deltas > 0) {
      const block = { type: "text", text: "" };
      output.content.push(block);
      const index = output.content.length - 1;
      yield { type: "text_start", contentIndex: index, partial: output };
      for (let i = 0; i < deltas; i++) {
        const offset = (4 * i) % 64;
        const delta = PATTERN.slice(offset, offset + 4);
        block.text += delta;
        yield { type: "text_delta", contentIndex: index, delta, partial: output };
      }
      yield { type: "text_end", contentIndex: index, content: block.text, partial: output };
    }
    if (turn < params.tool_turns) {
      for (let k = 0; k < params.tool_calls_per_turn; k++) {
        const call = { type: "toolCall", id: `call_${turn}_${k}`, name: "echo", arguments: {} };
        output.content.push(call);
        const index = output.content.length - 1;
        yield { type: "toolcall_start", contentIndex: index, partial: output };
        const args = { text: `turn-${String(turn).padStart(4, "0")}-call-${k}` };
        if (params.tool_result_bytes > 0) args.size = params.tool_result_bytes;
        const raw = JSON.stringify(args);
        work.argChunks.push(Math.ceil(raw.length / 4));
        for (let j = 0; j < raw.length; j += 4) {
          yield { type: "toolcall_delta", contentIndex: index, delta: raw.slice(j, j + 4), partial: output };
        }
        call.arguments = args;
        yield { type: "toolcall_end", contentIndex: index, toolCall: call, partial: output };
      }
    }
    yield { type: "done", reason: output.stopReason, message: output };
  }

  work.streamFn = (m, context) => {
    const turn = work.llmCalls++;
    if (params.serialize_context) {
      work.serializedChars += JSON.stringify({ model: m, system: context.systemPrompt, messages: context.messages, tools: context.tools }).length;
    }
    const output = {
      role: "assistant", content: [], api: "bench", provider: "bench", model: "bench-model",
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: turn < params.tool_turns ? "toolUse" : "stop", timestamp: Date.now(),
    };
    const stream = createAssistantMessageEventStream();
    const track = () => { work.maxBacklog = Math.max(work.maxBacklog, stream.queue?.length ?? 0); };
    if (producer === "sync") {
      for (const event of events(turn, output)) { stream.push(event); track(); }
      stream.end(output);
      return stream;
    }
    queueMicrotask(async () => {
      for (const event of events(turn, output)) {
        stream.push(event);
        track();
        if (event.type === "done") break;
        if (producer === "micro") await Promise.resolve();
        else await setImmediateP();
      }
      stream.end(output);
    });
    return stream;
  };

  const sink = {
    events: 0, byType: {}, updates: {}, textDeltas: 0, turnStarts: [], turnEnds: [], rssMax: 0,
  };
  work.sinkFn = async (event) => {
    sink.events++;
    const kind = event.type;
    sink.byType[kind] = (sink.byType[kind] ?? 0) + 1;
    if (kind === "message_update") {
      const sub = event.assistantMessageEvent.type;
      sink.updates[sub] = (sink.updates[sub] ?? 0) + 1;
      if (sub === "text_delta") sink.textDeltas++;
    } else if (kind === "turn_start") sink.turnStarts.push(performance.now());
    else if (kind === "turn_end") sink.turnEnds.push(performance.now());
    if (sink.events % 256 === 0) sink.rssMax = Math.max(sink.rssMax, rssMb());
  };
  work.sink = sink;
  return work;
}

const SYSTEM_PROMPT = "You are a benchmark agent.";
const convertToLlm = (messages) => messages.filter((m) => m.role === "user" || m.role === "assistant" || m.role === "toolResult");
const transformContext = async (messages) => messages;

async function runOnce(params, api, producer) {
  const work = workload(params, producer);
  const prompt = { role: "user", content: [{ type: "text", text: "go" }], timestamp: Date.now() };
  let messages;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  if (api === "loop") {
    const context = { systemPrompt: SYSTEM_PROMPT, messages: [], tools: [work.tool] };
    const config = { model: work.model, convertToLlm, transformContext, toolExecution: "parallel" };
    messages = await runAgentLoop([prompt], context, config, work.sinkFn, undefined, work.streamFn);
  } else {
    const agent = new Agent({
      initialState: { systemPrompt: SYSTEM_PROMPT, model: work.model, tools: [work.tool], messages: [] },
      convertToLlm, transformContext, streamFn: work.streamFn, toolExecution: "parallel",
    });
    agent.subscribe(work.sinkFn);
    await agent.prompt(prompt);
    messages = agent.state.messages;
  }
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { work, messages, wall, cpu: (cpu.user + cpu.system) / 1e6 };
}

function expectedCounts(params) {
  const llm = params.tool_turns + 1;
  const tools = params.tool_turns * params.tool_calls_per_turn;
  const args = { text: "turn-0000-call-0" };
  if (params.tool_result_bytes > 0) args.size = params.tool_result_bytes;
  const chunks = Math.ceil(JSON.stringify(args).length / 4);
  const D = params.deltas_per_turn;
  const updates = llm * (D > 0 ? D + 2 : 0) + tools * (2 + chunks);
  return { llm, tools, messages: 1 + llm + tools, events: 2 + 2 * llm + 2 * (1 + llm + tools) + 2 * tools + updates, updates };
}

function textChars(messages) {
  let n = 0;
  for (const m of messages) {
    if (typeof m.content === "string") { n += m.content.length; continue; }
    for (const block of m.content ?? []) if (block.type === "text") n += block.text.length;
  }
  return n;
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const n = s.length; return n === 0 ? 0 : n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
const mean = (xs) => xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;

async function main() {
  const { args, params } = parseArgs(process.argv.slice(2));
  const tImport = performance.now();
  const rssBaseline = rssMb();
  for (let i = 0; i < args.warmup; i++) await runOnce(params, args.api, args.producer);
  const { work, messages, wall, cpu } = await runOnce(params, args.api, args.producer);
  const sink = work.sink;
  const exp = expectedCounts(params);
  const scripted = params.tool_turns * params.tool_sleep_ms / 1000;
  let measured = 0;
  for (const [s, e] of work.sleeps.values()) measured += (e - s) / 1000;
  const turns = sink.turnStarts.map((s, i) => (sink.turnEnds[i] - s) * 1000);
  const n = Math.max(1, Math.min(20, Math.floor(turns.length / 2)));
  const pkg = (name) => JSON.parse(readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url))).version;
  const result = {
    schema: "pi-loop-bench/1", impl: "pi-ts",
    impl_version: `@earendil-works/pi-agent-core@${pkg("@earendil-works/pi-agent-core")}`,
    llm_version: `@earendil-works/pi-ai@${pkg("@earendil-works/pi-ai")}`,
    runtime: `node ${process.version}`, api: args.api, producer: args.producer, workload: args.workload,
    params, warmup: args.warmup,
    llm_calls: work.llmCalls, tool_calls: work.toolCalls,
    messages: messages.length, events: sink.events, text_deltas: sink.textDeltas,
    wall_s: wall, cpu_s: cpu, events_per_s: sink.events / wall, deltas_per_s: sink.textDeltas / wall,
    scripted_sleep_s: scripted,
    per_turn_overhead_us: (wall - scripted) / work.llmCalls * 1e6,
    measured_sleep_s: measured,
    per_turn_overhead_measured_us: (wall - measured) / work.llmCalls * 1e6,
    per_event_us: (wall - scripted) / sink.events * 1e6,
    parallel_speedup: params.tool_sleep_ms > 0 ? exp.tools * params.tool_sleep_ms / 1000 / wall : null,
    turn_us_p50: median(turns), turn_us_first20: mean(turns.slice(0, n)), turn_us_last20: mean(turns.slice(-n)),
    context_text_chars: textChars(messages), serialized_chars: work.serializedChars, max_backlog: work.maxBacklog,
    import_s: tImport / 1000, rss_baseline_mb: rssBaseline, rss_sampled_max_mb: Math.max(sink.rssMax, rssMb()),
    rss_peak_mb: process.resourceUsage().maxRSS / 1024, loadavg_1m: loadavg()[0],
    events_by_type: sink.byType, updates_by_type: sink.updates,
  };
  console.log(JSON.stringify(result));
  const ok = work.llmCalls === exp.llm && work.toolCalls === exp.tools && messages.length === exp.messages && sink.events === exp.events
    && sink.byType.turn_start === exp.llm && (sink.byType.message_update ?? 0) === exp.updates;
  if (!ok) { console.error("event counts differ from the contract", exp); process.exit(1); }
}

await main();
