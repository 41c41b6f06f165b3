package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1 // the operation failed
	exitUsage = 2 // the command line is wrong
)

// streams are a command's standard input, output and error.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// command is a top-level subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, st streams) int
}

// commands lists the subcommands in the order usage shows them. It is filled
// in init to break the initialization cycle through usage.
var commands []command

func init() {
	commands = []command{
		{"fs", "work directly on a workspace database: ls, cat, put, get, import, export, ...", runFS},
		{"help", "show this help", func(_ context.Context, _ []string, st streams) int {
			usage(st.out)
			return exitOK
		}},
	}
}

// run executes the desk command line args and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	st := streams{in: stdin, out: stdout, err: stderr}
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name := args[0]
	if name == "-h" || name == "-help" || name == "--help" {
		name = "help"
	}
	for _, c := range commands {
		if c.name == name {
			return c.run(ctx, args[1:], st)
		}
	}
	fmt.Fprintf(stderr, "desk: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, "desk gives AI agents a persistent computer: a workspace whose files live in one SQLite database.\n\n")
	fmt.Fprint(w, "usage: desk COMMAND [ARGS]\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-6s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nRun 'desk fs help' for the fs verbs.\n")
}
