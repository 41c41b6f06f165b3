// Package chat is a terminal chat agent on a desk workspace: a REPL that
// sends the person's lines to a model, streams its answer, runs the tools it
// calls on the desk server and sends their results back, until the model
// answers without a tool call. It is the engine of examples/agent (`go run
// ./examples/agent -w WS`); it imports only the standard library and desk's
// public client.
//
// # Providers
//
// Anthropic speaks the Messages API (POST /v1/messages, "stream": true):
// Server-Sent Events message_start, content_block_start (text and tool_use
// blocks), content_block_delta (text_delta, input_json_delta),
// content_block_stop, message_delta (the stop reason), message_stop; ping is
// ignored; an error event ends the stream with an *APIError. Other block
// types (thinking) are dropped. The system prompt and the last block of the
// conversation carry cache_control breakpoints, so each step of a turn reads
// the conversation so far from the prompt cache.
//
// OpenAI speaks an OpenAI-compatible Chat Completions API (POST
// {base}/chat/completions, "stream": true): "data:" chunks with
// delta.content and delta.tool_calls fragments joined by their index, up to
// "data: [DONE]"; an "error" object inside the stream ends it. Tool results
// become "tool" messages; Chat Completions takes no image there, so an image
// a tool returned (read of a PNG) is described in words, where the Anthropic
// provider sends the image itself.
//
// Flags.NewProvider chooses: -provider, else anthropic when
// ANTHROPIC_API_KEY is set, else openai when OPENAI_API_KEY or
// OPENAI_BASE_URL is; the key, model and base URL come from -api-key,
// -model and -base-url, else ANTHROPIC_API_KEY, ANTHROPIC_MODEL,
// ANTHROPIC_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL, OPENAI_BASE_URL.
//
// # Tools
//
// The tools are the desk server's: New lists them (GET
// /v1/workspaces/{ws}/tools, the token's tools only) and gives the model
// their names, descriptions and input schemas as the server defines them,
// so there is no second copy to drift. A call is POST
// /v1/workspaces/{ws}/tools/{name} through the client; a tool's failure is a
// result marked is_error for the model to read, and so is a call the server
// refused (a missing scope, an unknown tool), with the server's message. A
// tool input that is not valid JSON (an answer cut at the token limit) is
// answered with an error result without calling the server. Calls run one
// after another in the order the model gave them.
//
// # Approvals
//
// A workspace's (or a token's) command rules may say to ask before a
// command runs (package policy: `ask git push *`); the server then holds the
// exec as pending_approval until an approver decides. While an exec call is
// in flight the agent watches the workspace's pending approvals through
// Config.Approver (GET …/approvals?wait=30s&version=V, which the server
// answers at the list's next change: no polling), and for
// one whose script is the exec's command it asks the person, on the
// terminal, "run it? [y/N]": y approves it (POST …/approvals/{id}/approve),
// anything else or the end of input denies it (…/deny), and the model's
// tool result then starts by saying the person denied it. A token never
// approves its own calls, so the Approver is the admin token or another
// token with the approve scope (-approve-token, $DESK_APPROVE_TOKEN); by
// default it is the agent's own client, which works for the admin token.
// When it may not list approvals, an exec still running after the next poll
// says so once and the agent stops looking for the session; the exec waits
// for another approver (desk approve) or the server's approval timeout.
//
// # Audit labels
//
// Every desk request of a session carries the audit journal's labels
// (SessionLabels): X-Desk-Agent desk-agent-example, X-Desk-Session (a
// random id, or $DESK_SESSION), X-Desk-Model (the model), and each tool
// call X-Desk-Turn, the number of the model's answer in the session that
// made it. So `desk audit --session ID WS` lists, answer by answer, every
// call the agent made, what each was allowed or refused and what it
// changed; the banner prints the session id.
//
// # Limits
//
//   - A tool result's text sent to the model is at most MaxResultBytes
//     (default 32 KiB): past it each text part keeps its share as head
//     (three quarters) and tail with a note of the bytes cut. desk bounds
//     its own outputs first (read 256 KiB a call, exec's output head and
//     tail), so this cap matters for a model with a small context.
//   - A turn makes at most MaxSteps model calls (default 50), then stops
//     and says so; the next line goes on.
//   - A model call that fails with a retryable error — HTTP 408, 409, 429,
//     500, 502, 503, 504, 529, an error event of type overloaded_error,
//     rate_limit_error, api_error or server_error, a stream that breaks or
//     ends early, a failed connection — is retried at most Retries times
//     (default 5), waiting RetryWait (1 s) doubled each time, plus up to a
//     quarter of jitter, at most MaxRetryWait (1 min), or the server's
//     Retry-After (or retry-after-ms) when longer, up to twice MaxRetryWait.
//     A 429 for an exhausted quota (insufficient_quota) and other errors
//     are not retried. Text already streamed of an answer that broke off is
//     dropped from the conversation, and the terminal says so.
//   - One Server-Sent Event is at most MaxEventBytes (4 MiB); an answer's
//     headers must come within 2 minutes; an input line is at most 1 MiB.
//
// # Conversation
//
// The conversation is kept in memory across turns, whole: there is no
// compaction, so a long session ends when the model's context is full (the
// provider's error says so; /reset starts over). A turn that failed or was
// stopped keeps what it got: the next line joins the last message of the
// person's, so roles keep alternating and every tool call keeps its
// result. Ctrl-C during a turn stops it (a running exec is killed, through
// the call's context); at the prompt it ends the session, as do Ctrl-D and
// /exit.
//
// # Terminal
//
// The model's text goes to IO.Out as it arrives. Each tool call is one line,
// "-> name key=value ..." (strings quoted, long ones cut), and its result
// its first ShowLines (6) lines, indented, each cut at 160 bytes, then how
// many more lines and bytes there were; control characters of a tool's
// output (escape sequences) are shown as U+FFFD, so a command cannot drive
// the terminal. On a terminal (IO.Live, which main sets when stdout is a
// character device) a running exec's latest output line is shown in place
// (the call streams its progress), erased when the call ends. Retries and
// errors go to IO.Err.
package chat
