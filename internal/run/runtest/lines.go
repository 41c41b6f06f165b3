package runtest

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/desk-dev/desk/internal/run"
	"github.com/desk-dev/desk/internal/run/runtest/linecmd"
)

// Lines is the test backend: one command per line, those of package
// linecmd and:
//
//	env NAME         the variable's value and a newline
//	pwd              the working directory and a newline
//	block            wait until cancelled
//	write PATH DATA  write a file with the job's ctx
//	exit N           end with exit code N
//	usage U S RSS    end with exit code 0 and that run.Usage (Go durations, bytes)
//
// An unknown command prints "CMD: unknown command" to stderr and ends with
// exit code 127.
type Lines struct{}

var _ run.Backend = Lines{}

// Run runs job.Source.
func (Lines) Run(ctx context.Context, job *run.Job) (run.Outcome, error) {
	for line := range strings.SplitSeq(job.Source, "\n") {
		cmd, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
		ok, err := linecmd.Run(ctx, cmd, arg, job.Stdin, job.Stdout, job.Stderr)
		if ok {
			if err != nil {
				return run.Outcome{}, err
			}
			continue
		}
		switch cmd {
		case "":
		case "env":
			_, err = io.WriteString(job.Stdout, job.Env[arg]+"\n")
		case "pwd":
			_, err = io.WriteString(job.Stdout, job.Cwd+"\n")
		case "block":
			<-ctx.Done()
			return run.Outcome{}, ctx.Err()
		case "write":
			p, data, _ := strings.Cut(arg, " ")
			err = job.FS.WriteFile(ctx, p, []byte(data), 0o644)
		case "exit":
			n, _ := strconv.Atoi(arg)
			return run.Outcome{ExitCode: n}, nil
		case "usage":
			f := strings.Fields(arg)
			if len(f) != 3 {
				return run.Outcome{}, fmt.Errorf("usage: want U S RSS, got %q", arg)
			}
			u, _ := time.ParseDuration(f[0])
			sy, _ := time.ParseDuration(f[1])
			rss, _ := strconv.ParseInt(f[2], 10, 64)
			return run.Outcome{Usage: &run.Usage{UserTime: u, SysTime: sy, MaxRSS: rss}}, nil
		default:
			fmt.Fprintf(job.Stderr, "%s: unknown command\n", cmd)
			return run.Outcome{ExitCode: 127}, nil
		}
		if err != nil {
			return run.Outcome{}, err
		}
	}
	return run.Outcome{}, nil
}

// BigOutput is the output of "big N": lines of their offset ("%015d\n"),
// cut at n bytes.
func BigOutput(n int) []byte { return linecmd.BigOutput(n) }
