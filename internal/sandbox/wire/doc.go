// Package wire is the protocol between the sandbox backend (on the host) and
// the sandbox init (inside the sandbox): frames over one unix stream socket.
//
// # Frames
//
// Every frame is a 9-byte header and a payload:
//
//	length  uint32, big endian: 5 + len(payload)
//	type    uint8   (Type)
//	stream  uint32, big endian: the execution stream the frame belongs to (0: none)
//	payload bytes:  JSON for control frames, raw bytes for data frames,
//	                a big-endian uint32 for Credit and StdinAck
//
// A payload is at most MaxPayload bytes; a longer frame, or one of a type
// this package does not define, is a protocol error and ends the connection
// (the backend then stops the sandbox). Reading a frame allocates at most
// its payload, so at most MaxPayload. Both sides treat
// everything they read as untrusted: a malformed frame ends the connection,
// it never crashes the reader.
//
// # Conversation
//
// The host speaks first with Config; the init answers Ready. Then the host
// opens streams by number (it chooses them, increasing, never reused on one
// connection):
//
//	host → init  Start{...} on stream n        init → host  Started{PID} on n (or Error, then nothing)
//	host → init  Stdin bytes on n (empty: EOF)  init → host  StdinAck n bytes written to the pipe
//	init → host  Stdout / Stderr bytes on n     host → init  Credit n bytes consumed
//	host → init  Signal{...} on n               init → host  Exit{...} on n, last frame of the stream
//	host → init  Resize{Rows, Cols} on n (terminal executions; no answer)
//	init → host  Policy{ExecDecision} on n or 0 (an exec refused by Start.Commands)
//
// Start.Commands carries an execution's command rules (package policy's
// layers as text, at most MaxRuleLayers of MaxLayerRules rules): the init
// decides every execve of the execution's processes by them, and reports
// each one it refused as an ExecDecision, on the execution's stream while it
// is attached and open, else (detached, a terminal, or after the stream's
// Exit) on stream 0 — at most MaxExecReports one by one per execution, later
// ones counted in the next report's Unreported.
//
// Output is flow-controlled: the init sends at most Config.OutputWindow bytes
// of a stream's output beyond what the host has acknowledged with Credit, and
// stops reading the program's pipes when that much is waiting, so a program
// that writes faster than the host consumes blocks in write(2), like a program
// writing to a slow terminal. Stdin is flow-controlled the other way: the host
// sends at most Config.OutputWindow bytes beyond what StdinAck acknowledged.
//
// Detached executions (Start.Detached) are not bound to their stream: the
// stream ends with Exit{Detached: true} right after Started, the output goes
// into a bounded buffer in the init, and Attach{ID} on a new stream replays
// what the buffer holds (an Elided frame counting what it dropped) and then
// follows the output live until the execution's output ends (Exit). List
// (answered by Listed) reports them; Signal with an ID, on a stream of its
// own, signals one (answered by OK or Error).
//
// Terminal executions (Start.Terminal, desk shell) run on a new
// pseudo-terminal the init opens in the sandbox's devpts: its slave side is
// the program's stdin, stdout, stderr and controlling terminal (the program
// leads its own session), with the window size of Start.Terminal. What the
// program writes arrives as Stdout only (a terminal has one output), under
// the same credit; Stdin bytes are typed on the terminal (so the line
// discipline echoes them and turns ^C into SIGINT), and the end of input (an
// empty Stdin) types the terminal's end-of-file character (VEOF, ^D) and
// stops the input. Resize frames on the stream set the window size
// (TIOCSWINSZ), which sends SIGWINCH to the terminal's foreground process
// group. Everything else (Signal, Exit, killing what is left of the session
// when the main process ends) is as for any execution.
//
// Type values below 64 go from host to init, values from 64 from init to host.
package wire
