/**
 * Results handed back to a model in its SDK's own types, so a bot's turn ends
 * in one line: OpenAI tool messages, Anthropic `tool_result` blocks, AI SDK
 * `tool-result` parts. Each reads what fanout answers: a results payload
 * (await, collect, a waited `parallel`), a `batch.finished` event (webhook or
 * stream), or a `/tool-calls` answer. Each result goes to the call it answers
 * by the call's own id (`tool_call_id`), in call order.
 */
import { JOB_STATES } from "./job-states.js";
import type { FanoutEvent, JobSnapshot, ResultsPayload, ToolCallsAnswer } from "./types.js";

type BatchFinished = Extract<FanoutEvent, { type: "batch.finished" }>;

/** What the helpers read. */
export type ResultsSource = ResultsPayload | ToolCallsAnswer | Pick<BatchFinished, "type" | "data">;

export interface OpenAIToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}

export interface AnthropicToolResult {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  is_error?: true;
}

export interface AiSdkToolResult {
  type: "tool-result";
  toolCallId: string;
  toolName: string;
  output: { type: "text"; value: string } | { type: "error-text"; value: string };
}

/** One call's outcome, the same for every SDK. */
interface Outcome {
  id: string;
  name: string;
  failed: boolean;
  content: string;
}

/** A state this client does not know yet (a newer worker) counts as neither active nor failed. */
const stateOf = (state: string) =>
  (JOB_STATES as Record<string, { active: boolean; failed: boolean } | undefined>)[state];

/** `{"role":"tool","tool_call_id","content"}` per call, to push onto the chat-completions messages. */
export function toOpenAIToolMessages(source: ResultsSource): OpenAIToolMessage[] {
  return outcomes(source).map((o) => ({ role: "tool", tool_call_id: o.id, content: o.content }));
}

/** `tool_result` blocks, `is_error` on failures: the content of the next `user` message. */
export function toAnthropicToolResults(source: ResultsSource): AnthropicToolResult[] {
  return outcomes(source).map((o) => ({
    type: "tool_result",
    tool_use_id: o.id,
    content: o.content,
    ...(o.failed ? { is_error: true as const } : {}),
  }));
}

/** `tool-result` parts (`error-text` output on failures): the content of the next `tool` message. */
export function toAiSdkToolResults(source: ResultsSource): AiSdkToolResult[] {
  return outcomes(source).map((o) => ({
    type: "tool-result",
    toolCallId: o.id,
    toolName: o.name,
    output: { type: o.failed ? "error-text" : "text", value: o.content },
  }));
}

function outcomes(source: ResultsSource): Outcome[] {
  if ("results" in source && Array.isArray(source.results)) return source.results.map((entry) => fromEntry(entry));
  const payload = "data" in source ? source.data.results : (source as ResultsPayload);
  if (!payload || !Array.isArray(payload.jobs)) {
    throw new TypeError(
      "Expected a results payload ({status, jobs}), a batch.finished event or a /tool-calls answer ({status, batch_id, results}).",
    );
  }
  // A `/tool-calls` batch's `batch.finished` names every call, refused ones too: a call that is one job
  // takes that job's outcome, under the id its model wrote.
  const calls = "data" in source ? source.data.tool_calls : undefined;
  if (!calls) return payload.jobs.map((job) => fromSnapshot(job));
  const jobs = new Map(payload.jobs.map((job) => [job.job_id, job]));
  return calls.map((entry) => {
    const job = entry.content === undefined && entry.job_id ? jobs.get(entry.job_id) : undefined;
    return job ? { ...fromSnapshot({ ...job, tool_call_id: entry.tool_call_id }), name: entry.name } : fromEntry(entry);
  });
}

/** A `/tool-calls` entry: its content is written already (a result, `Error: …`, a `parallel` payload). */
function fromEntry({ content, ...entry }: ToolCallsAnswer["results"][number]): Outcome {
  return {
    id: entry.tool_call_id,
    name: entry.name,
    failed: stateOf(entry.state)?.failed === true,
    content: content ?? JSON.stringify(entry), // still active: its job id and state, to await
  };
}

/**
 * A job's content as `/tool-calls` writes it (docs/api.md#tiered-execution-and-the-tool-calls-route): its
 * result, or `Error: <message>`.
 */
function fromSnapshot(job: JobSnapshot): Outcome {
  if (!job.tool_call_id) {
    throw new TypeError(
      `Job ${job.job_id} has no tool_call_id: start calls with their own ids (OpenAI \`id\`, Anthropic \`id\`, AI SDK \`toolCallId\`), ` +
        "or hand a `parallel` call's whole payload back as that call's result.",
    );
  }
  const failed = stateOf(job.state)?.failed === true;
  const content = stateOf(job.state)?.active
    ? JSON.stringify(job)
    : failed
      ? `Error: ${job.error ?? `the job ended ${job.state}`}`
      : (job.result ?? "");
  return { id: job.tool_call_id, name: job.tool_name, failed, content };
}
