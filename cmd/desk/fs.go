package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/desk-dev/desk/client"
	"github.com/desk-dev/desk/internal/fsio"
	"github.com/desk-dev/desk/internal/policy"
	"github.com/desk-dev/desk/internal/vfs"
	"github.com/desk-dev/desk/internal/workspace"
	"github.com/desk-dev/desk/internal/wspath"
)

// fsVerb is one `desk fs` verb.
type fsVerb struct {
	name     string
	synopsis string // arguments, for usage
	summary  string
	write    bool // needs a writable store (created if missing)
	local    bool // works on a database file only (-db), not over the API
	minArgs  int
	maxArgs  int // -1: any number
	// setup registers the verb's flags on fl and returns the function that runs
	// the verb with its positional arguments.
	setup func(fl *flag.FlagSet) func(c *fsCmd, args []string) error
}

// fsVerbs lists the verbs in the order usage shows them (filled in init).
var fsVerbs []*fsVerb

func init() {
	fsVerbs = []*fsVerb{
		fsLs, fsCat, fsPut, fsGet, fsMkdir, fsRm, fsMv, fsStat, fsTree,
		fsImport, fsExport, fsCheck, fsStats, fsCompact,
	}
}

// fsCmd is the state of one `desk fs` invocation.
type fsCmd struct {
	ctx    context.Context
	verb   *fsVerb
	dbPath string // -db: the workspace database file
	ws     string // -w: the workspace on the desk server
	server *serverFlags
	in     io.Reader
	out    *bufio.Writer // buffered standard output; flushed when the verb ends
	rawOut io.Writer     // standard output itself
	errw   io.Writer
	fsys   *vfs.FS   // opened by store
	fstore fileStore // opened by files
	srv    server    // the server, once files reached it
}

// usageError is a command-line mistake: it exits with status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

func runFS(ctx context.Context, args []string, st streams) int {
	fl := flag.NewFlagSet("desk fs", flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	db := fl.String("db", "", "")
	var ws string
	fl.StringVar(&ws, "w", "", "")
	fl.StringVar(&ws, "workspace", "", "")
	sf := addServerFlags(fl)
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fsUsage(st.out)
			return exitOK
		}
		fmt.Fprintf(st.err, "desk fs: %v\n\n", err)
		fsUsage(st.err)
		return exitUsage
	}
	rest := fl.Args()
	if len(rest) == 0 {
		fmt.Fprint(st.err, "desk fs: missing verb\n\n")
		fsUsage(st.err)
		return exitUsage
	}
	if rest[0] == "help" {
		if len(rest) > 1 {
			if v := lookupVerb(rest[1]); v != nil {
				fl := verbFlags(v, st.out)
				v.setup(fl)
				fl.Usage()
				return exitOK
			}
		}
		fsUsage(st.out)
		return exitOK
	}
	v := lookupVerb(rest[0])
	if v == nil {
		fmt.Fprintf(st.err, "desk fs: unknown verb %q\n\n", rest[0])
		fsUsage(st.err)
		return exitUsage
	}
	vfl := verbFlags(v, io.Discard) // parse quietly: we choose where usage goes
	runVerb := v.setup(vfl)
	pos, err := parseInterspersed(vfl, rest[1:])
	if errors.Is(err, flag.ErrHelp) {
		vfl.SetOutput(st.out)
		vfl.Usage()
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(st.err, "desk fs %s: %v\n", v.name, err)
		vfl.SetOutput(st.err)
		vfl.Usage()
		return exitUsage
	}
	switch {
	case len(pos) < v.minArgs:
		err = usagef("missing argument")
	case v.maxArgs >= 0 && len(pos) > v.maxArgs:
		err = usagef("too many arguments")
	case *db != "" && ws != "":
		err = usagef("give -db PATH (a database file) or -w WORKSPACE (on the desk server), not both")
	case *db == "" && ws == "":
		err = usagef("-db PATH is required (the workspace database file), or -w WORKSPACE for a workspace on the desk server")
	case ws != "" && v.local:
		err = usagef("%s works on a workspace database file only (-db PATH), not over the API", v.name)
	}
	if err != nil {
		fmt.Fprintf(st.err, "desk fs %s: %v\n", v.name, err)
		fmt.Fprintf(st.err, "usage: desk fs %s %s %s\n", v.target(), v.name, v.synopsis)
		return exitUsage
	}
	c := &fsCmd{
		ctx:    ctx,
		verb:   v,
		dbPath: *db,
		ws:     ws,
		server: sf,
		in:     st.in,
		out:    bufio.NewWriterSize(st.out, 64<<10),
		rawOut: st.out,
		errw:   st.err,
	}
	err = runVerb(c, pos)
	if ferr := c.out.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("write output: %w", ferr)
	}
	if c.fstore != nil {
		if cerr := c.fstore.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("close workspace: %w", cerr)
		}
	}
	if c.fsys != nil {
		if cerr := c.fsys.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("close workspace: %w", cerr)
		}
	}
	if err == nil {
		return exitOK
	}
	if c.ws != "" {
		err = reachable(err, c.srv)
	}
	fmt.Fprintf(st.err, "desk fs %s: %s\n", v.name, errText(err))
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(st.err, "usage: desk fs %s %s %s\n", v.target(), v.name, v.synopsis)
		return exitUsage
	}
	return exitError
}

// target is how usage names the workspace for v.
func (v *fsVerb) target() string {
	if v.local {
		return "-db PATH"
	}
	return "-db PATH|-w WS"
}

func lookupVerb(name string) *fsVerb {
	for _, v := range fsVerbs {
		if v.name == name {
			return v
		}
	}
	return nil
}

// verbFlags returns a flag set for v whose usage describes the verb.
func verbFlags(v *fsVerb, w io.Writer) *flag.FlagSet {
	fl := flag.NewFlagSet("desk fs "+v.name, flag.ContinueOnError)
	fl.SetOutput(w)
	fl.Usage = func() {
		out := fl.Output()
		fmt.Fprintf(out, "usage: desk fs %s %s %s\n\n%s\n", v.target(), v.name, v.synopsis, v.summary)
		if v.local {
			fmt.Fprint(out, "\nWorks on a workspace database file (-db PATH) only, not over the API.\n")
		}
		hasFlags := false
		fl.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprint(out, "\nflags:\n")
			fl.PrintDefaults()
		}
	}
	return fl
}

// parseInterspersed parses flags that may come before, between or after the
// positional arguments ("--" ends flag parsing) and returns the positionals.
func parseInterspersed(fl *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fl.Parse(args); err != nil {
			return nil, err
		}
		rest := fl.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func fsUsage(w io.Writer) {
	fmt.Fprint(w, "usage: desk fs -db PATH VERB [ARGS]\n")
	fmt.Fprint(w, "       desk fs -w WORKSPACE [--url URL] [--token TOKEN] VERB [ARGS]\n\n")
	fmt.Fprint(w, "With -db, works directly on the workspace database PATH (a SQLite file that no\n")
	fmt.Fprint(w, "server has open); verbs that write create it if it is missing. A data\n")
	fmt.Fprint(w, "directory's DATA/workspaces/WS.db keeps WS's own byte and inode quotas (desk ws\n")
	fmt.Fprint(w, "limits). With -w (or\n")
	fmt.Fprint(w, "--workspace), works on a workspace of the desk server, found as for every\n")
	fmt.Fprint(w, "client command (--url/--token, $DESK_URL/$DESK_TOKEN, the config file).\n")
	fmt.Fprint(w, "Workspace paths are slash paths; a relative one is taken from /workspace.\n\nverbs:\n")
	for _, v := range fsVerbs {
		note := ""
		if v.local {
			note = " (-db only)"
		}
		if len(v.synopsis) > 32 {
			fmt.Fprintf(w, "  %-7s %s\n  %-7s %-32s %s%s\n", v.name, v.synopsis, "", "", v.summary, note)
			continue
		}
		fmt.Fprintf(w, "  %-7s %-32s %s%s\n", v.name, v.synopsis, v.summary, note)
	}
	fmt.Fprint(w, "\nOver the API, ls -l and stat show what the API reports: no owner, blocks,\n")
	fmt.Fprint(w, "access/change/birth times or xattrs. Run 'desk fs help VERB' for a verb's flags.\n")
}

// files returns the workspace the shared verbs work on: the database file
// (-db), opened once by store, or the workspace on the desk server (-w).
// eachPath runs fn on each argument in order, as a workspace path
// (wsPath) with its index, with the store the verb works on; the first
// error stops it.
func (c *fsCmd) eachPath(args []string, fn func(fsys fileStore, i int, p string) error) error {
	fsys, err := c.files()
	if err != nil {
		return err
	}
	for i, arg := range args {
		if err := fn(fsys, i, wsPath(arg)); err != nil {
			return err
		}
	}
	return nil
}

func (c *fsCmd) files() (fileStore, error) {
	if c.fstore != nil {
		return c.fstore, nil
	}
	if c.ws == "" {
		fsys, err := c.store()
		if err != nil {
			return nil, err
		}
		c.fstore = localStore{fsys}
		return c.fstore, nil
	}
	cl, srv, err := c.server.client()
	if err != nil {
		return nil, err
	}
	c.srv = srv
	c.fstore = &remoteStore{c: cl, ws: c.ws}
	return c.fstore, nil
}

// offlineLimits are the store options of a workspace database opened
// without a server: for DATA/workspaces/WS.db, the workspace's own byte and
// inode quotas (DATA/policy/WS/limits.json, desk ws limits), as desk serve
// opens it with; a value it does not set, and a database outside a data
// directory, take the store's defaults (the server's flags are not known
// here).
func offlineLimits(dbPath string) (vfs.Options, error) {
	var o vfs.Options
	dir := filepath.Dir(dbPath)
	ws, ok := workspace.NameOf(filepath.Base(dbPath))
	if !ok || filepath.Base(dir) != workspace.DirName {
		return o, nil
	}
	l, err := policy.OpenStore(filepath.Dir(dir)).Limits(ws)
	if err != nil {
		return o, fmt.Errorf("open workspace %s: %w", dbPath, err)
	}
	o.QuotaBytes, o.MaxInodes = l.MaxBytes, l.MaxInodes
	return o, nil
}

// store opens the workspace database, once. Verbs call it after checking
// their other arguments, so that a bad command line creates nothing.
func (c *fsCmd) store() (*vfs.FS, error) {
	if c.fsys != nil {
		return c.fsys, nil
	}
	fi, err := os.Stat(c.dbPath)
	switch {
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("%s is a directory, not a workspace database", c.dbPath)
	case errors.Is(err, fs.ErrNotExist) && !c.verb.write:
		return nil, fmt.Errorf("workspace database %s does not exist", c.dbPath)
	case errors.Is(err, fs.ErrNotExist):
		dir := filepath.Dir(c.dbPath)
		if dfi, err := os.Stat(dir); err != nil || !dfi.IsDir() {
			return nil, fmt.Errorf("cannot create workspace database %s: directory %s does not exist", c.dbPath, dir)
		}
	case err != nil:
		return nil, err
	}
	vo, err := offlineLimits(c.dbPath)
	if err != nil {
		return nil, err
	}
	vo.ReadOnly = !c.verb.write
	fsys, err := vfs.Open(c.ctx, c.dbPath, vo)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", c.dbPath, err)
	}
	if c.verb.write {
		// What imports a killed desk fs import left (the store is ours alone).
		if _, err := fsio.CleanStaging(c.ctx, fsys); err != nil {
			fsys.Close()
			return nil, fmt.Errorf("open workspace %s: %w", c.dbPath, err)
		}
		// Every workspace has /workspace, as a server's does from its first
		// open: relative paths are taken from it.
		if err := wspath.Ensure(vfs.WithActor(c.ctx, workspace.Actor), fsys); err != nil {
			fsys.Close()
			return nil, fmt.Errorf("open workspace %s: %w", c.dbPath, err)
		}
	}
	c.fsys = fsys
	return fsys, nil
}

// wsPath turns a path argument into an absolute, clean workspace path: a
// relative one is taken from /workspace, as on every surface (wspath).
func wsPath(p string) string {
	return wspath.Resolve(p)
}

// errText renders an error for the terminal, adding the POSIX errno name
// ("no such file or directory (ENOENT)") when the error carries one.
//
// An error from the desk server reads "message (CODE)": the errno name or a
// named code such as not_found or bad_name.
func errText(err error) string {
	s := err.Error()
	var ce *client.Error
	if errors.As(err, &ce) {
		code := ce.Code
		if strings.Contains(ce.Message, "("+code+")") {
			code = ""
		}
		repl := ce.Message
		if code != "" {
			repl += " (" + code + ")"
		}
		return strings.Replace(s, ce.Error(), repl, 1)
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		if name := unix.ErrnoName(errno); name != "" && !strings.Contains(s, name) {
			s += " (" + name + ")"
		}
	}
	return s
}

// isTerminal reports whether v is an *os.File open on a terminal.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
