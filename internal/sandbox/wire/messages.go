package wire

import "time"

// Config configures the init; it is the first frame the host sends. Zero
// fields are refused by the init (the host fills in its defaults).
type Config struct {
	Version int `json:"version"`
	// OutputWindow is how many output bytes of one stream may be in flight
	// (sent, not yet credited), and how many stdin bytes the host may send
	// beyond the last StdinAck.
	OutputWindow int `json:"output_window"`
	// DetachedBuffer is the output kept per detached execution (the newest).
	DetachedBuffer int `json:"detached_buffer"`
	// MaxDetached bounds detached executions known to the init (running, or
	// ended and not yet forgotten: the oldest ended ones are forgotten first).
	MaxDetached int `json:"max_detached"`
	// KillGrace is the time between SIGTERM and SIGKILL when an execution
	// times out or is signalled with escalation.
	KillGrace time.Duration `json:"kill_grace_ns"`
	// DrainTimeout bounds how long the init keeps reading a finished
	// execution's pipes when a process outside its session still holds them.
	DrainTimeout time.Duration `json:"drain_timeout_ns"`
	// OOMScoreAdj is written to every started program's oom_score_adj, so
	// that the OOM killer picks a program rather than the init.
	OOMScoreAdj int `json:"oom_score_adj"`
	// ProxyPort, if not 0, makes the init listen on 127.0.0.1:ProxyPort
	// and carry each connection to the host's egress proxy at ProxySocket.
	ProxyPort int `json:"proxy_port,omitempty"`
	// Forward: the init serves inbound port forwarding on ForwardFD (see
	// "Port forwarding" in forward.go).
	Forward bool `json:"forward,omitempty"`
}

// ProxySocket is where the backend binds the Unix socket of its egress
// proxy inside the sandbox.
const ProxySocket = "/.desk/egress.sock"

// Ready answers Config.
type Ready struct {
	Version int `json:"version"`
	PID     int `json:"pid"` // the init's pid inside the sandbox (1)
}

// Start starts an execution.
type Start struct {
	// ID is the execution id (run's); detached executions are addressed by it.
	ID string `json:"id"`
	// Argv is the program and its arguments (argv[0] is the path executed).
	Argv []string `json:"argv"`
	// Cwd is the working directory; Env the complete environment ("K=V").
	Cwd string   `json:"cwd"`
	Env []string `json:"env"`
	// Timeout is the init's own bound on the execution's wall time (0: none):
	// SIGTERM, then SIGKILL after KillGrace.
	Timeout time.Duration `json:"timeout_ns,omitempty"`
	// Detached: see the package documentation.
	Detached bool `json:"detached,omitempty"`
	// Terminal, when set, runs the program on a new pseudo-terminal (desk
	// shell): see the package documentation. Detached must be false.
	Terminal *Terminal `json:"terminal,omitempty"`
	// User, if set, runs the program as that user instead of root (an
	// image's configured user).
	User *User `json:"user,omitempty"`
	// Commands, if set, are the command rules the init enforces on every
	// execve and execveat of the execution's processes (see "Command rules
	// at exec" in the package documentation); nil: none, and no filter.
	Commands *CommandRules `json:"commands,omitempty"`
	// Group, if not 0, is the token with which the host passed (on the
	// notify socket, NotifyFD) the cgroup.threads file of the execution's
	// own cgroup: the init's forking thread writes "0" to it (joins the
	// group) and forks, so that the program is born in the group, which
	// the host reads as the execution's CPU meter. The init waits for the
	// descriptor; a program it cannot put in the group starts outside it
	// (Started.Ungrouped says why).
	Group uint64 `json:"group,omitempty"`
}

// CommandRules are the command rules in force for one execution: package
// policy's layers, as text (policy.ParseCommandRule), the first layer
// first. A command must pass every layer.
type CommandRules struct {
	Layers []RuleLayer `json:"layers"`
	// AskApproved: a command a rule says to ask about may run (the
	// execution's script was approved as a whole); otherwise it is
	// refused like a denied one.
	AskApproved bool `json:"ask_approved,omitempty"`
}

// RuleLayer is one layer of command rules: its source ("workspace",
// "token", "execution"), its rules in order ("deny curl *") and the action
// of a command no rule matches ("": allow).
type RuleLayer struct {
	Source  string   `json:"source"`
	Rules   []string `json:"rules,omitempty"`
	Default string   `json:"default,omitempty"`
}

// MaxRuleLayers and MaxLayerRules bound CommandRules (the init refuses
// more).
const (
	MaxRuleLayers = 16
	MaxLayerRules = 256
)

// ExecDecision reports an execve the init refused under Start.Commands
// (TPolicy): on the execution's stream while it is attached and open, else
// on stream 0.
type ExecDecision struct {
	// ID is the execution's id (Start.ID).
	ID string `json:"id"`
	// PID is the refused process's pid inside the sandbox.
	PID int `json:"pid"`
	// Outcome is "denied" or "asked" (a command that needed approval,
	// refused); Action the deciding rule's action.
	Outcome string `json:"outcome"`
	Action  string `json:"action"`
	// Rule and Source name the deciding rule and its layer.
	Rule   string `json:"rule,omitempty"`
	Source string `json:"source,omitempty"`
	// Subject is the command line as checked: the program's absolute path,
	// then its arguments (at most MaxSubject bytes).
	Subject string `json:"subject"`
	// Errno is the error execve returned to the program (EACCES).
	Errno int `json:"errno"`
	// Unreported counts refusals of the execution not reported one by one
	// before this one (past MaxExecReports).
	Unreported int `json:"unreported,omitempty"`
}

// MaxSubject bounds ExecDecision.Subject, and MaxExecReports the
// refusals the init reports one by one per execution (later ones are
// counted in the next report).
const (
	MaxSubject     = 4 << 10
	MaxExecReports = 64
)

// User is a uid and gid inside the sandbox.
type User struct {
	UID uint32 `json:"uid"`
	GID uint32 `json:"gid"`
}

// Terminal is the window size of a pseudo-terminal, in character cells.
// Both are in 1..MaxTerminalSize.
type Terminal struct {
	Rows int `json:"rows"`
	Cols int `json:"cols"`
}

// MaxTerminalSize bounds Terminal.Rows and Terminal.Cols (the kernel keeps
// them as 16-bit numbers).
const MaxTerminalSize = 65535

// Valid reports whether both dimensions are in range.
func (t Terminal) Valid() bool {
	return t.Rows >= 1 && t.Rows <= MaxTerminalSize && t.Cols >= 1 && t.Cols <= MaxTerminalSize
}

// Resize changes the window size of a terminal execution (the program's
// foreground process group gets SIGWINCH). It has no answer.
type Resize struct {
	Terminal
}

// Started says the program runs.
type Started struct {
	PID int `json:"pid"` // its pid inside the sandbox (also its session and process group id)
	// Ungrouped says why the program is not in the cgroup Start.Group
	// passed ("": it is, or none was asked for).
	Ungrouped string `json:"ungrouped,omitempty"`
}

// Signal signals an execution's processes: every process of its session and
// process group.
type Signal struct {
	Signal int `json:"signal"`
	// Escalate sends SIGKILL KillGrace later if processes remain.
	Escalate bool `json:"escalate,omitempty"`
	// ID addresses a detached execution (on a stream of its own); empty: the
	// stream's execution.
	ID string `json:"id,omitempty"`
}

// Attach follows a detached execution's output on a new stream.
type Attach struct {
	ID string `json:"id"`
}

// Exit is the last frame of an execution's stream.
type Exit struct {
	// Code is the exit status, or 128+Signal when a signal ended the program.
	Code int `json:"code"`
	// Signal is the signal that ended the program (0: it exited).
	Signal int `json:"signal,omitempty"`
	// TimedOut: the init's Start.Timeout expired and the init killed it.
	TimedOut bool `json:"timed_out,omitempty"`
	// Killed is the signal the init sent on request (Signal frame), if any.
	Killed int `json:"killed,omitempty"`
	// UserTime and SysTime are the CPU time of the program and the
	// descendants it waited for; MaxRSS the largest resident set among them.
	UserTime time.Duration `json:"user_ns"`
	SysTime  time.Duration `json:"sys_ns"`
	MaxRSS   int64         `json:"max_rss"`
	// Detached: the stream that started a detached execution ends here; the
	// execution goes on.
	Detached bool `json:"detached,omitempty"`
	// Error says why the program could not start (Code is then 126 or 127,
	// as bash reports), or what went wrong around it.
	Error string `json:"error,omitempty"`
}

// Error ends a stream whose request failed.
type Error struct {
	Message string `json:"message"`
}

// Listed answers List.
type Listed struct {
	Detached []Detached `json:"detached"`
}

// Detached describes a detached execution.
type Detached struct {
	ID      string    `json:"id"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	// Running is true while the main process runs.
	Running bool `json:"running"`
	// Procs counts live processes of its session (the main one included).
	Procs int `json:"procs"`
	// Exit is set once the main process has ended.
	Exit *Exit `json:"exit,omitempty"`
	// Output counts the output bytes it produced; Dropped those its buffer
	// no longer holds.
	Output  int64 `json:"output"`
	Dropped int64 `json:"dropped"`
}
