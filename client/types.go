package client

import (
	"encoding/base64"
	"encoding/json"
	"time"
	"unicode/utf8"
)

// Workspace describes a workspace without opening it.
type Workspace struct {
	Name     string    `json:"name"`
	Bytes    int64     `json:"bytes"`    // size on disk: database file and WAL
	Modified time.Time `json:"modified"` // newest modification of those files
	Open     bool      `json:"open"`     // open in the server now
	Leases   int       `json:"leases"`   // users holding it open now
}

// WorkspaceList is a page of workspaces; Next is the name to pass as after
// for the next page ("" on the last page).
type WorkspaceList struct {
	Workspaces []Workspace `json:"workspaces"`
	Next       string      `json:"next,omitempty"`
}

// StoreStats summarise a workspace store's contents.
type StoreStats struct {
	Files       int64   `json:"files"`
	Dirs        int64   `json:"dirs"`
	Symlinks    int64   `json:"symlinks"`
	Bytes       int64   `json:"bytes"`        // logical bytes of regular files
	StoredBytes int64   `json:"stored_bytes"` // before deduplication
	UniqueBytes int64   `json:"unique_bytes"` // distinct chunks stored
	Chunks      int64   `json:"chunks"`
	DedupRatio  float64 `json:"dedup_ratio"`
	JournalSeq  uint64  `json:"journal_seq"` // newest change number
	DBBytes     int64   `json:"db_bytes"`
	// The store's space on disk (vfs.Stats): pages in use, the database
	// file, the WAL, and free pages the store gives back.
	Special          int64 `json:"special"`
	LiveBytes        int64 `json:"live_bytes"`
	FileBytes        int64 `json:"file_bytes"`
	WALBytes         int64 `json:"wal_bytes"`
	ReclaimableBytes int64 `json:"reclaimable_bytes"`
	// Small files held in their inode row and their bytes; chunks in the
	// chunk file and its disk space (vfs.Stats).
	InlineFiles    int64 `json:"inline_files"`
	InlineBytes    int64 `json:"inline_bytes"`
	SlotChunks     int64 `json:"slot_chunks"`
	ChunkFileBytes int64 `json:"chunk_file_bytes"`
}

// SpaceStats are a workspace's disk space, as statfs reports it: Free is the
// smallest of the quota left, the disk's free space (beyond the data
// directory's reserve) and the data directory's bound left; LimitedBy names
// it ("quota", "disk" or "datadir"). Size is Used plus Free.
type SpaceStats struct {
	Size         int64  `json:"size"`
	Used         int64  `json:"used"` // unique content bytes stored
	Free         int64  `json:"free"`
	LimitedBy    string `json:"limited_by"`
	Quota        int64  `json:"quota"`
	Files        int64  `json:"files"`      // the inode limit
	FilesFree    int64  `json:"files_free"` // 0 when there is no room for another
	DiskBytes    int64  `json:"disk_bytes"` // the filesystem holding the data directory
	DiskFree     int64  `json:"disk_free"`  // its free space (the reserve not counted)
	ReserveBytes int64  `json:"reserve_bytes"`
	ReserveHeld  bool   `json:"reserve_held"`   // false after a full disk, until space comes back
	DataDirLimit int64  `json:"data_dir_limit"` // the server-wide bound (0: none)
	DataDirBytes int64  `json:"data_dir_bytes"` // what the data directory takes, as measured (with a bound)
}

// CheckReport is what POST /v1/workspaces/{ws}/check reports: the store's
// invariants verified (vfs.FS.Check).
type CheckReport struct {
	// OK is set when every invariant holds.
	OK bool `json:"ok"`
	// Problems lists what failed (at most 1,000 of them).
	Problems []string `json:"problems"`
}

// WorkspaceStats describe an open workspace.
type WorkspaceStats struct {
	Name     string     `json:"name"`
	OpenedAt time.Time  `json:"opened_at"`
	Store    StoreStats `json:"store"`
	Space    SpaceStats `json:"space"`
	Running  int        `json:"running"`  // executions running now
	Backends []string   `json:"backends"` // backends executions may use
}

// File types in FileInfo.Type and DirEntry.Type.
const (
	TypeFile    = "file"
	TypeDir     = "dir"
	TypeSymlink = "symlink"
	TypeFIFO    = "fifo"   // a named pipe (mkfifo)
	TypeSocket  = "socket" // a UNIX socket's name (bind)
	TypeChar    = "char"   // a character device
	TypeBlock   = "block"  // a block device
)

// FileInfo describes a file, directory or symbolic link of a workspace.
type FileInfo struct {
	Path   string    `json:"path"` // the workspace path asked for, cleaned
	Name   string    `json:"name"`
	Type   string    `json:"type"` // TypeFile, TypeDir, TypeSymlink, TypeFIFO, TypeSocket, TypeChar or TypeBlock
	Mode   string    `json:"mode"` // permission bits, octal ("0644"), setuid/setgid/sticky included
	Size   int64     `json:"size"`
	Mtime  time.Time `json:"mtime"`
	Ino    uint64    `json:"ino"`
	Nlink  uint32    `json:"nlink"`
	Target string    `json:"target,omitempty"` // a symlink's target
	Device string    `json:"device,omitempty"` // a device's number, "major:minor"
}

// DirEntry is one entry of a directory listing.
type DirEntry struct {
	Name  string    `json:"name"`
	Type  string    `json:"type"`
	Mode  string    `json:"mode"`
	Size  int64     `json:"size"`
	Mtime time.Time `json:"mtime"`
}

// DirList is a page of a directory listing, in name order; Next is the name
// to pass as after for the next page ("" on the last page).
type DirList struct {
	Path    string     `json:"path"`
	Entries []DirEntry `json:"entries"`
	Next    string     `json:"next,omitempty"`
}

// FindResult lists paths matching a glob. Truncated is set when a bound
// (the limit or the server's walk bound) stopped the search early.
type FindResult struct {
	Matches   []DirEntryPath `json:"matches"`
	Truncated bool           `json:"truncated,omitempty"`
}

// DirEntryPath is a find match: a path and what it is.
type DirEntryPath struct {
	Path string `json:"path"`
	Type string `json:"type"`
	Size int64  `json:"size"`
}

// GrepMatch is one matching line.
type GrepMatch struct {
	Path string `json:"path"`
	Line int    `json:"line"` // 1-based
	Text string `json:"text"` // the line, without its newline, cut at the server's line bound
}

// GrepResult is a page of grep matches. When NextPath is set, more may
// follow: pass NextPath and NextLine as after and after_line.
type GrepResult struct {
	Matches  []GrepMatch `json:"matches"`
	NextPath string      `json:"next_path,omitempty"`
	NextLine int         `json:"next_line,omitempty"`
	// Skipped counts files not searched: binary or over the server's size bound.
	Skipped int `json:"skipped,omitempty"`
}

// Change is one entry of a workspace's change journal.
type Change struct {
	Seq     uint64    `json:"seq"`
	Time    time.Time `json:"time"`
	Op      string    `json:"op"`
	Path    string    `json:"path"`
	OldPath string    `json:"old_path,omitempty"`
	Ino     uint64    `json:"ino,omitempty"`
	Off     int64     `json:"off,omitempty"`
	Len     int64     `json:"len,omitempty"`
	Actor   string    `json:"actor,omitempty"` // the execution id that made it, if any
}

// ChangeList is a page of changes; Next is the cursor to pass as since for
// the next page (the last Seq, or since when the page is empty).
type ChangeList struct {
	Changes []Change `json:"changes"`
	Next    uint64   `json:"next"`
}

// ExecRequest starts an execution.
type ExecRequest struct {
	Source  string            `json:"source"`
	Backend string            `json:"backend,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Stdin   string            `json:"stdin,omitempty"`
	// Timeout is a Go duration ("30s", "5m"); empty: the server's default.
	Timeout     string          `json:"timeout,omitempty"`
	Input       json.RawMessage `json:"input,omitempty"`
	OutputLimit int64           `json:"output_limit,omitempty"`
	// ID is a caller-chosen execution id (1-64 of [A-Za-z0-9._-]); empty: generated.
	ID string `json:"id,omitempty"`
	// Detached starts a detached execution: a long-running service whose
	// processes outlive its main process (the sandbox backend; "auto" picks
	// it). The request returns once the program has started; not with
	// wait=1, and without stdin.
	Detached bool `json:"detached,omitempty"`
	// StdinStream says standard input comes as a stream of any size,
	// PUT …/executions/{id}/stdin (Client.WriteStdin), instead of Stdin.
	StdinStream bool `json:"stdin_stream,omitempty"`
	// Foreground ties the execution to its client: when no request follows
	// it (its events, its stdin stream, a wait=1 request) for the server's
	// grace period (10 s by default), it is killed with SIGHUP.
	Foreground bool `json:"foreground,omitempty"`
	// Egress narrows the workspace's (and the token's) egress policy for
	// this execution: "none", "all" or "allow RULE; RULE" (docs/api.md).
	Egress string `json:"egress,omitempty"`
}

// StdinResult is the answer to a stdin stream: the bytes the program took.
type StdinResult struct {
	Bytes int64 `json:"bytes"`
}

// Execution statuses.
const (
	StatusRunning   = "running"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
	StatusCancelled = "cancelled"
	StatusTimedOut  = "timed-out"
	StatusCPULimit  = "cpu-limit" // it used its CPU limit (max_cpu_per_execution); exit code 152
)

// ExecChanges are the workspace paths an execution changed.
type ExecChanges struct {
	Created   []string `json:"created"`
	Modified  []string `json:"modified"`
	Deleted   []string `json:"deleted"`
	Truncated bool     `json:"truncated,omitempty"`
}

// ExecUsage is the resources an execution's program used: CPU time in user
// and kernel mode (nanoseconds) and the peak resident set size (bytes).
type ExecUsage struct {
	// CPUNS is the execution's CPU time as its meter read it (all its
	// processes or goroutines): what the CPU limit and quota count.
	CPUNS       int64 `json:"cpu_ns,omitempty"`
	UserNS      int64 `json:"user_ns"`
	SysNS       int64 `json:"sys_ns"`
	MaxRSSBytes int64 `json:"max_rss_bytes"`
}

// Execution is an execution's record.
type Execution struct {
	ID      string `json:"id"`
	Backend string `json:"backend"`
	// Requested is the backend asked for when it was not the one that ran
	// ("auto"); Route says why that backend was chosen.
	Requested string `json:"requested,omitempty"`
	Route     string `json:"route,omitempty"`
	Status    string `json:"status"`
	ExitCode  int    `json:"exit_code"`
	Error     string `json:"error,omitempty"`
	Signal    string `json:"signal,omitempty"`
	Source    string `json:"source"`
	Cwd       string `json:"cwd"`
	TimeoutNS int64  `json:"timeout_ns"`
	// MaxCPUNS is the CPU limit it ran with (0: none).
	MaxCPUNS    int64           `json:"max_cpu_ns,omitempty"`
	OutputLimit int64           `json:"output_limit"`
	Started     time.Time       `json:"started"`
	Ended       time.Time       `json:"ended,omitzero"`
	Events      uint64          `json:"events"`
	StdoutBytes int64           `json:"stdout_bytes"`
	StderrBytes int64           `json:"stderr_bytes"`
	Value       json.RawMessage `json:"value,omitempty"`
	Changes     *ExecChanges    `json:"changes,omitempty"`
	// Usage is the program's resource usage, when its backend measures it
	// (the sandbox backend); absent otherwise and while running.
	Usage *ExecUsage `json:"usage,omitempty"`
	// Detached is set for a detached execution (ExecRequest.Detached).
	Detached bool `json:"detached,omitempty"`
	// Foreground and StdinStream are as requested (ExecRequest).
	Foreground  bool `json:"foreground,omitempty"`
	StdinStream bool `json:"stdin_stream,omitempty"`
}

// Result is an execution's record with its kept output (the head and tail
// of it when it was over the output limit).
type Result struct {
	Execution
	Stdout       string `json:"stdout"`
	Stderr       string `json:"stderr"`
	StdoutElided int64  `json:"stdout_elided,omitempty"`
	StderrElided int64  `json:"stderr_elided,omitempty"`
}

// ExecutionList is a page of execution records in id order.
type ExecutionList struct {
	Executions []Execution `json:"executions"`
	Next       string      `json:"next,omitempty"`
}

// Event types.
const (
	EventStdout = "stdout"
	EventStderr = "stderr"
	EventElided = "elided" // events First..Seq were not kept; Bytes of output
	EventExit   = "exit"   // the last event
)

// Exit says how an execution ended.
type Exit struct {
	Status   string `json:"status"`
	ExitCode int    `json:"exit_code"`
	Error    string `json:"error,omitempty"`
	Signal   string `json:"signal,omitempty"`
}

// Event is one numbered event of an execution. On the wire, output that is
// valid UTF-8 travels as "data" and other output as "data_base64"; Data holds
// the bytes either way.
type Event struct {
	Seq          uint64    `json:"seq"`
	Time         time.Time `json:"time"`
	Type         string    `json:"type"`
	Data         []byte    `json:"-"`
	StdoutOffset int64     `json:"stdout_offset"`
	StderrOffset int64     `json:"stderr_offset"`
	First        uint64    `json:"first,omitempty"`
	Bytes        int64     `json:"bytes,omitempty"`
	Exit         *Exit     `json:"exit,omitempty"`
}

type eventAlias Event

type eventWire struct {
	*eventAlias
	Text   *string `json:"data,omitempty"`
	Base64 string  `json:"data_base64,omitempty"`
}

// MarshalJSON writes Data as text or base64.
func (e Event) MarshalJSON() ([]byte, error) {
	w := eventWire{eventAlias: (*eventAlias)(&e)}
	if len(e.Data) > 0 {
		if utf8.Valid(e.Data) {
			s := string(e.Data)
			w.Text = &s
		} else {
			w.Base64 = base64.StdEncoding.EncodeToString(e.Data)
		}
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads Data from either form.
func (e *Event) UnmarshalJSON(b []byte) error {
	w := eventWire{eventAlias: (*eventAlias)(e)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	switch {
	case w.Text != nil:
		e.Data = []byte(*w.Text)
	case w.Base64 != "":
		d, err := base64.StdEncoding.DecodeString(w.Base64)
		if err != nil {
			return err
		}
		e.Data = d
	default:
		e.Data = nil
	}
	return nil
}

// Scopes of a workspace token.
const (
	ScopeRead  = "read"
	ScopeWrite = "write"
	ScopeExec  = "exec"
)

// TokenRequest mints a workspace token.
type TokenRequest struct {
	Workspace string   `json:"workspace"`
	Scopes    []string `json:"scopes"`
	Backends  []string `json:"backends,omitempty"` // exec backends allowed; empty: all
	// Egress, if set, narrows the workspace's egress policy for what the
	// token runs: "none", "all" or "allow RULE; RULE" (docs/api.md).
	Egress string `json:"egress,omitempty"`
	// Rules, if set, narrow the workspace's path and command rules for
	// the token's calls (docs/api.md).
	Rules *Rules `json:"rules,omitempty"`
}

// Token describes a workspace token (never its secret).
type Token struct {
	ID        string    `json:"id"`
	Workspace string    `json:"workspace"`
	Scopes    []string  `json:"scopes"`
	Backends  []string  `json:"backends,omitempty"`
	Egress    string    `json:"egress,omitempty"` // the token's narrowing egress policy
	Rules     *Rules    `json:"rules,omitempty"`  // the token's narrowing path and command rules
	Created   time.Time `json:"created"`
	Revoked   bool      `json:"revoked,omitempty"`
	RevokedAt time.Time `json:"revoked_at,omitzero"`
}

// MintedToken is a new token and its secret, the bearer token to use; the
// server shows the secret only this once.
type MintedToken struct {
	Token  Token  `json:"token"`
	Secret string `json:"secret"`
}

// TokenList is a page of tokens in id order.
type TokenList struct {
	Tokens []Token `json:"tokens"`
	Next   string  `json:"next,omitempty"`
}

// Requests of the file operations that take a body.
type (
	// MoveRequest renames a path (POST ?op=move).
	MoveRequest struct {
		To        string `json:"to"`
		NoReplace bool   `json:"no_replace,omitempty"` // fail with EEXIST rather than replace
	}
	// CopyRequest copies a file or tree (POST ?op=copy); the target must not exist.
	CopyRequest struct {
		To string `json:"to"`
	}
	// ChmodRequest changes permission bits (POST ?op=chmod); Mode is octal ("0755").
	ChmodRequest struct {
		Mode string `json:"mode"`
	}
	// MknodRequest makes a FIFO, socket or device (POST ?op=mknod): Type
	// is TypeFIFO, TypeSocket, TypeChar or TypeBlock; Device ("major:minor")
	// is for devices only.
	MknodRequest struct {
		Type   string `json:"type"`
		Mode   string `json:"mode,omitempty"` // octal permission bits; default 0644
		Device string `json:"device,omitempty"`
	}
	// KillRequest kills an execution; Signal is a name or number (default SIGTERM).
	KillRequest struct {
		Signal string `json:"signal,omitempty"`
	}
	// WorkspaceRequest creates a workspace: empty, or (From) holding a
	// clone of a git repository. Egress, if set, is the new workspace's
	// egress policy in its text form ("allow github.com"), stored before
	// the clone, which goes through it (else through the server's default).
	WorkspaceRequest struct {
		Name   string           `json:"name"`
		Egress string           `json:"egress,omitempty"`
		From   *WorkspaceSource `json:"from,omitempty"`
	}
	// WorkspaceSource is what a new workspace starts with: a clone of the
	// git repository at Git (an http or https URL) in /workspace, of the
	// branch (or full commit id) Ref (default the remote's HEAD), with at
	// most Depth commits of history (0: all).
	WorkspaceSource struct {
		Git   string `json:"git"`
		Ref   string `json:"ref,omitempty"`
		Depth int    `json:"depth,omitempty"`
	}
)

// WorkspaceEvent is an event of a workspace creation's stream
// (CreateWorkspaceFrom): "progress" events carry the clone's output, one
// line each (Text, its line end included); the last is "created", with
// the workspace. A failure ends the stream with an error instead, and no
// workspace is left.
type WorkspaceEvent struct {
	Seq       uint64     `json:"seq"`
	Type      string     `json:"type"` // "progress" or "created"
	Text      string     `json:"text,omitempty"`
	Workspace *Workspace `json:"workspace,omitempty"`
}

// ErrorBody is the JSON body of every error response.
type ErrorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// MountRequest asks for a local mount of a workspace (POST
// /v1/workspaces/{ws}/mounts, admin): the workspace mounted through FUSE on
// a directory of the server's own machine, for as long as the request's
// stream lasts.
type MountRequest struct {
	// Dir is the mount point: an absolute path, without symbolic links, to
	// an existing empty directory on the server's machine.
	Dir string `json:"dir"`
	// AllowOther lets users other than root (the server's user) use the
	// mount; the kernel still checks the stored modes and owners.
	AllowOther bool `json:"allow_other,omitempty"`
	// ReadOnly mounts read-only (writes through the mount fail with EROFS).
	ReadOnly bool `json:"read_only,omitempty"`
}

// MountEvent is an event of a mount's stream: "mounted" first, then, if
// the mount ends while the stream is up, "unmounted". A mount the server
// ends as it stops ends the stream with an error event (unavailable).
type MountEvent struct {
	Seq        uint64 `json:"seq"`
	Type       string `json:"type"` // "mounted" or "unmounted"
	ID         string `json:"id"`   // the mount's id: DELETE /v1/workspaces/{ws}/mounts/{id} unmounts it
	Workspace  string `json:"workspace"`
	Dir        string `json:"dir"`
	AllowOther bool   `json:"allow_other,omitempty"`
	ReadOnly   bool   `json:"read_only,omitempty"`
	Connection int    `json:"connection,omitempty"` // the FUSE connection number (/sys/fs/fuse/connections/N)
	// Reason says why a mount was unmounted: "request" (DELETE …/mounts/{id})
	// or "outside" (umount, fusermount -u, an aborted connection).
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"` // unmounted: what happened, for people
	Error   string `json:"error,omitempty"`   // unmounted: what went wrong unmounting, if anything
}
