package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/desk-dev/desk/internal/sandbox"
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
		{"serve", "run the desk server: the HTTP API over the workspaces of a data directory", runServe},
		{"ws", "create, list, describe and delete workspaces, their policy (egress, path and command rules): ws create|ls|stats|rm|policy", wsGroup.run},
		{"secret", "a workspace's secrets, sent only to their hosts, never seen by executions: secret set|ls|rm", secretGroup.run},
		{"fs", "files of a workspace: ls, cat, put, get, mkdir, rm, mv, stat, tree, ... (-w WS or -db FILE)", runFS},
		{"cp", "copy files or trees between the host and a workspace: desk cp ./src WS:/workspace/, desk cp WS:out.pdf .", runCp},
		{"exec", "run a command in a workspace, streaming its output; exit with its exit code", runExec},
		{"attach", "follow an execution's output again and exit with its exit code", runAttach},
		{"shell", "an interactive bash on a terminal in a workspace's sandbox, over the API", runShell},
		{"kill", "send a signal to a running execution (default SIGTERM)", runKill},
		{"ps", "list a workspace's running executions, detached services marked, with their listening ports", runPS},
		{"port", "ports services listen on in a workspace's sandbox: port ls WS, port share WS PORT (a preview link)", portGroup.run},
		{"image", "OCI images for the sandbox on this machine: image import FILE NAME | ls | rm NAME | use WS NAME | default NAME", imageGroup.run},
		{"port-forward", "forward a local TCP port to a port of a workspace's sandbox, until Ctrl-C", runPortForward},
		{"changes", "print a workspace's change journal; --follow streams it live", runChanges},
		{"mount", "mount a workspace on a directory through FUSE, until Ctrl-C (admin)", runMount},
		{"mcp", "serve a workspace over MCP on standard input and output (Claude Code, Cursor, ...)", runMCP},
		{"tools", "the agent tools: tools schema (for LLM APIs), tools replay FILE (a scripted session)", toolsGroup.run},
		{"approve", "list a workspace's executions pending approval, or approve one: approve WS [ID]", runApprove},
		{"deny", "deny an execution pending approval: deny WS ID", runDeny},
		{"token", "mint, list and revoke workspace tokens: token mint|ls|revoke", tokenGroup.run},
		{"audit", "the audit journal: who called what, allowed or not, changing which files: audit [WS] [--path P]|export|verify", runAudit},
		{"share", "share a file as a link anyone holding it may open until it expires: share WS PATH, share ls|rm", runShare},
		{"artifact", "publish a workspace's git repository for clone, fetch and push: artifact create|token|ls|revoke|rm", artifactGroup.run},
		{"bench", "measure this machine: bench fs (the sandbox's /workspace against tmpfs and the disk)", benchGroup.run},
		{"help", "show this help, or a command's: desk help COMMAND", runHelp},
	}
}

// runHelp prints the usage, or a command's help.
func runHelp(ctx context.Context, args []string, st streams) int {
	if len(args) > 0 {
		for _, c := range commands {
			if c.name == args[0] && c.name != "help" {
				return c.run(ctx, append(args[1:], "-h"), st)
			}
		}
		fmt.Fprintf(st.err, "desk help: unknown command %q\n\n", args[0])
		usage(st.err)
		return exitUsage
	}
	usage(st.out)
	return exitOK
}

// run executes the desk command line args and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == sandbox.InitCommand {
		// Hidden: the sandbox's init handles its signals itself.
		return runSandboxInit(args[1:], stderr)
	}
	if len(args) > 0 && args[0] == workerCommand {
		// Hidden: desk serve's worker; it stops when its parent says so.
		return runWorker(args[1:], stdin, stdout, stderr)
	}
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
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Start a server with 'desk serve'; the other commands find it through --url and
--token, $DESK_URL and $DESK_TOKEN, or the config file desk serve writes, in
that order. 'desk fs -db FILE' works on a workspace database directly, without
a server.

Exit status: 0 on success, 1 when the operation failed ("desk CMD: message
(CODE)"), 2 for a usage error; desk exec and desk attach exit with the
command's status. Run 'desk help COMMAND' or 'desk COMMAND -h' for details.
`)
}
