package runtest

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/desk-dev/desk/internal/run"
)

// Lines is the test backend: one command per line.
//
//	echo TEXT        TEXT and a newline to stdout
//	err TEXT         TEXT and a newline to stderr
//	env NAME         the variable's value and a newline
//	pwd              the working directory and a newline
//	lines N          N lines "%07d\n" to stdout
//	big N            N bytes of BigOutput to stdout, in writes of 64 KiB
//	sleep DURATION   sleep, or return when cancelled
//	block            wait until cancelled
//	write PATH DATA  write a file with the job's ctx
//	cat              copy stdin to stdout
//	sum              read stdin to its end; print its length and SHA-256
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
		var err error
		switch cmd {
		case "":
		case "echo":
			_, err = io.WriteString(job.Stdout, arg+"\n")
		case "err":
			_, err = io.WriteString(job.Stderr, arg+"\n")
		case "env":
			_, err = io.WriteString(job.Stdout, job.Env[arg]+"\n")
		case "pwd":
			_, err = io.WriteString(job.Stdout, job.Cwd+"\n")
		case "lines":
			n, _ := strconv.Atoi(arg)
			for i := range n {
				if _, err = fmt.Fprintf(job.Stdout, "%07d\n", i); err != nil {
					break
				}
			}
		case "big":
			n, _ := strconv.Atoi(arg)
			data := BigOutput(n)
			for len(data) > 0 && err == nil {
				k := min(len(data), 64<<10)
				_, err = job.Stdout.Write(data[:k])
				data = data[k:]
			}
		case "sleep":
			d, _ := time.ParseDuration(arg)
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return run.Outcome{}, ctx.Err()
			}
		case "block":
			<-ctx.Done()
			return run.Outcome{}, ctx.Err()
		case "write":
			p, data, _ := strings.Cut(arg, " ")
			err = job.FS.WriteFile(ctx, p, []byte(data), 0o644)
		case "cat":
			_, err = io.Copy(job.Stdout, job.Stdin)
		case "sum":
			h := sha256.New()
			var n int64
			if n, err = io.Copy(h, job.Stdin); err == nil {
				_, err = fmt.Fprintf(job.Stdout, "%d %x\n", n, h.Sum(nil))
			}
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
func BigOutput(n int) []byte {
	b := make([]byte, 0, n+16)
	for len(b) < n {
		b = fmt.Appendf(b, "%015d\n", len(b))
	}
	return b[:n]
}
