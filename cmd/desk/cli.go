package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"syscall"

	"github.com/desk-dev/desk/client"
)

// cmdSpec describes a command (or a verb of a command group) for its help,
// its usage errors and its error messages.
type cmdSpec struct {
	name     string // "ws create": messages read "desk ws create: ..."
	synopsis string // the arguments after the name, for usage
	summary  string // one line
	help     string // further paragraphs for -h (optional)
	minArgs  int
	maxArgs  int // -1: any number
}

// flags returns a quiet flag set whose Usage describes the command.
func (sp *cmdSpec) flags() *flag.FlagSet {
	fl := flag.NewFlagSet("desk "+sp.name, flag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.Usage = func() { sp.usage(fl.Output(), fl) }
	return fl
}

// usage writes the command's help.
func (sp *cmdSpec) usage(w io.Writer, fl *flag.FlagSet) {
	fmt.Fprintf(w, "usage: desk %s %s\n\n%s\n", sp.name, sp.synopsis, sp.summary)
	if sp.help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(sp.help, "\n"))
	}
	if fl == nil {
		return
	}
	first := true
	fl.VisitAll(func(f *flag.Flag) {
		if first {
			fmt.Fprint(w, "\nflags:\n")
			first = false
		}
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		typ, text := flag.UnquoteUsage(f)
		line := "  " + dash + f.Name
		if typ != "" {
			line += " " + typ
		}
		fmt.Fprintf(w, "%s\n    \t%s", line, strings.ReplaceAll(text, "\n", "\n    \t"))
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
			fmt.Fprintf(w, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
}

// parse parses args, flags and positional arguments in any order ("--" ends
// the flags), and checks the number of positionals. When it returns ok false
// the command is over with exit status code: help was printed (-h, 0) or a
// usage error was (2).
func (sp *cmdSpec) parse(fl *flag.FlagSet, args []string, st streams) (pos []string, code int, ok bool) {
	pos, err := parseInterspersed(fl, args)
	if errors.Is(err, flag.ErrHelp) {
		sp.usage(st.out, fl)
		return nil, exitOK, false
	}
	if err == nil {
		err = sp.checkArgs(pos)
	}
	if err != nil {
		return nil, sp.usageError(st, fl, err), false
	}
	return pos, exitOK, true
}

// checkArgs checks the number of positional arguments.
func (sp *cmdSpec) checkArgs(pos []string) error {
	switch {
	case len(pos) < sp.minArgs:
		return usagef("missing argument")
	case sp.maxArgs >= 0 && len(pos) > sp.maxArgs:
		return usagef("too many arguments")
	}
	return nil
}

// usageError reports a command-line mistake and returns exit status 2.
func (sp *cmdSpec) usageError(st streams, fl *flag.FlagSet, err error) int {
	fmt.Fprintf(st.err, "desk %s: %v\n", sp.name, err)
	fmt.Fprintf(st.err, "usage: desk %s %s\n", sp.name, sp.synopsis)
	fmt.Fprintf(st.err, "Run 'desk %s -h' for help.\n", sp.name)
	return exitUsage
}

// fail reports err as "desk NAME: message (CODE)" and returns its exit
// status: 2 for a usage error, 1 otherwise.
func (sp *cmdSpec) fail(st streams, err error) int {
	fmt.Fprintf(st.err, "desk %s: %s\n", sp.name, errText(err))
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(st.err, "usage: desk %s %s\n", sp.name, sp.synopsis)
		return exitUsage
	}
	return exitError
}

// remote resolves the server from sf, runs fn with a client for it and
// returns the exit status, reporting fn's error.
func (sp *cmdSpec) remote(st streams, sf *serverFlags, fn func(c *client.Client) error) int {
	c, srv, err := sf.client()
	if err == nil {
		err = reachable(fn(c), srv)
	}
	if err != nil {
		return sp.fail(st, err)
	}
	return exitOK
}

// remoteCmd is a command of the server being set up: its spec and its
// server flags (--url, --token), on the flag set remoteCmd returns.
type remoteCmd struct {
	sp *cmdSpec
	fl *flag.FlagSet
	sf *serverFlags
}

// remoteCmd returns a command of the server and its flag set, with --url and
// --token on it; the command adds its own flags to fl, then calls run.
func (sp *cmdSpec) remoteCmd() (*remoteCmd, *flag.FlagSet) {
	fl := sp.flags()
	return &remoteCmd{sp: sp, fl: fl, sf: addServerFlags(fl)}, fl
}

// run parses args (help, or a usage error, ends the command: parse), runs
// check when it is not nil (its error is a usage error, reported before the
// server is asked), then runs fn with a client of the server and the
// positional arguments, and returns the exit status (remote).
func (rc *remoteCmd) run(args []string, st streams, check func(pos []string) error, fn func(c *client.Client, pos []string) error) int {
	pos, code, ok := rc.sp.parse(rc.fl, args, st)
	if !ok {
		return code
	}
	if check != nil {
		if err := check(pos); err != nil {
			return rc.sp.usageError(st, rc.fl, err)
		}
	}
	return rc.sp.remote(st, rc.sf, func(c *client.Client) error { return fn(c, pos) })
}

// reachable explains an error that says the server could not be reached.
func reachable(err error, srv server) error {
	if err == nil || client.ErrorCode(err) != "" {
		return err
	}
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) {
		return fmt.Errorf("cannot reach the desk server at %s (from %s); is `desk serve` running? %w", srv.URL, srv.From, err)
	}
	return err
}

// group is a command with verbs: `desk ws create`, `desk token mint`.
type group struct {
	name    string
	summary string
	verbs   []groupVerb
}

// groupVerb is one verb of a group.
type groupVerb struct {
	spec *cmdSpec
	run  func(ctx context.Context, args []string, st streams) int
}

// run dispatches to a verb.
func (g *group) run(ctx context.Context, args []string, st streams) int {
	if len(args) == 0 {
		fmt.Fprintf(st.err, "desk %s: missing verb\n\n", g.name)
		g.usage(st.err)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		g.usage(st.out)
		return exitOK
	case "help":
		if len(args) > 1 {
			if v := g.lookup(args[1]); v != nil {
				return v.run(ctx, []string{"-h"}, st)
			}
		}
		g.usage(st.out)
		return exitOK
	}
	v := g.lookup(name)
	if v == nil {
		fmt.Fprintf(st.err, "desk %s: unknown verb %q\n\n", g.name, name)
		g.usage(st.err)
		return exitUsage
	}
	return v.run(ctx, args[1:], st)
}

func (g *group) lookup(name string) *groupVerb {
	for i := range g.verbs {
		if _, verb, _ := strings.Cut(g.verbs[i].spec.name, " "); verb == name {
			return &g.verbs[i]
		}
	}
	return nil
}

func (g *group) usage(w io.Writer) {
	fmt.Fprintf(w, "usage: desk %s VERB [ARGS]\n\n%s\n\nverbs:\n", g.name, g.summary)
	for _, v := range g.verbs {
		fmt.Fprintf(w, "  %-28s %s\n", v.spec.name+" "+v.spec.synopsis, v.spec.summary)
	}
	fmt.Fprintf(w, "\nRun 'desk %s help VERB' for a verb's flags.\n", g.name)
}
